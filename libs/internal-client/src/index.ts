export { InternalClient, internalPath, type InternalCall, type InternalClientOptions, type InternalReply } from './internal-client.js';
