// TodoMVC's Ember.js implementation (npm `todomvc`, the project's examples with
// their libraries): a to-do editor with hash routes (#/active, #/completed)
// whose items live in the browser's localStorage. Served as the TodoMVC
// package lays it out (the example reads ../../learn.json for its sidebar).
import { packageDir, serveStatic, type RunningApp } from '../../support.js';

export const TODOMVC_START = '/examples/emberjs/';

export async function startTodomvc(): Promise<RunningApp> {
  const app = await serveStatic({ mounts: { '/': packageDir('todomvc') } });
  return { url: `${app.url}${TODOMVC_START.replace(/\/$/, '')}`, close: app.close };
}
