/**
 * The node arguments that start a service with TypeScript (tsx) and the
 * tracing preload, relative to the repository root (the process's cwd):
 * `spawn(process.execPath, [...SERVICE_NODE_ARGS, 'services/<name>/src/main.ts'], { cwd: root })`.
 */
export const SERVICE_NODE_ARGS: readonly string[] = ['--import', 'tsx', '--import', './libs/telemetry/src/register.ts'];
