export { InternalClient, internalPath, type InternalCall, type InternalClientOptions, type InternalReply, type Refusals } from './internal-client.js';
