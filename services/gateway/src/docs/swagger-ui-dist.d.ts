// swagger-ui-dist ships no types; this is the one function the gateway uses.
declare module 'swagger-ui-dist/absolute-path.js' {
  /** The package's directory on disk. */
  export default function absolutePath(): string;
}
