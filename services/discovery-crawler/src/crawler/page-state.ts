/**
 * What a loaded page reports: its own calls and its state as the in-page
 * script records them. The page loader, the explorer and the client-route
 * probe all read them (kept apart so none of them imports another for a type).
 */
export interface ApiCall {
  method: string;
  url: string;
  status: number;
  response_time_ms: number;
  /** While exploring: the action that caused it (`form <selector>`, `button <text>`). */
  cause?: string;
  /** A form post (a document request), not an XHR/fetch call. */
  document?: boolean;
  /** Held in the browser (it would write, and the session does not allow writes): it never reached the target. */
  held?: boolean;
}

export interface PageState {
  /** The document's script elements. */
  scripts: number;
  /** fetch/XHR calls the page's scripts started. */
  started: number;
  /** ms since the last of them started (-1: none). */
  sinceStart: number;
  /** DOM changes since the document was parsed. */
  mutations: number;
  /** ms since the last of them (-1: none). */
  sinceMutation: number;
  /** Timers due within a second the page's scripts set and that have not fired (loops excluded). */
  timers: number;
  /** ms since a script last posted a message to a port (a scheduler slicing a render; -1: never). */
  sinceTask: number;
  /** URLs the page moved to with pushState/replaceState or a hash change, in order. */
  routes: string[];
  /** Uncaught script errors and unhandled rejections. */
  errors: string[];
  href: string;
}
