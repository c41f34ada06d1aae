/** One refused field of a request: what every validation here answers with (`details` of a 400). */
export interface FieldError {
  /** Dotted path of the failing field, `body` for the whole body. */
  field: string;
  message: string;
}
