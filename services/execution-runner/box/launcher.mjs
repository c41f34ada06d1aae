// The box's first process (pid 1 of its own pid namespace), started as root by
// the runner through `unshare --net --mount --pid --fork --mount-proc --kill-child`.
// It makes the namespaces a box: loopback up and nothing else in the network
// namespace, every mount read-only but the box's own directory, a private
// /dev/shm; then a forwarder from 127.0.0.1:<port> to the runner's egress
// proxy (a unix socket: the only way out), and the tenant's command under an
// unprivileged uid, no new privileges, rlimits, a clean environment.
// Plain JavaScript: it runs before anything could compile it. No secret passes
// through here (the argument is the box's settings only).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';

const box = JSON.parse(Buffer.from(process.argv[2], 'base64').toString('utf8'));

// stdin is a pipe from the runner that it never writes to: its end closes when the runner ends, however
// (SIGKILL included). The box ends then: this process is pid 1 of the box, so its exit kills every process in it.
let tenant;
const runnerGone = () => {
  tenant?.kill('SIGKILL');
  process.exit(137);
};
process.stdin.on('end', runnerGone);
process.stdin.on('close', runnerGone);
process.stdin.on('error', runnerGone);
process.stdin.resume();

function must(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`assay box: ${cmd} ${args.join(' ')} failed: ${(r.stderr || r.error?.message || '').trim()}\n`);
    process.exit(70);
  }
}

must('ip', ['link', 'set', 'lo', 'up']);
// The box's directory stays writable: a bind mount of its own, made before the rest turns read-only.
must('mount', ['--bind', box.dir, box.dir]);
const mountPoints = readFileSync('/proc/self/mountinfo', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => line.split(' ')[4].replace(/\\040/g, ' '));
const keep = (mp) => mp === box.dir || /^\/(proc|sys|dev)(\/|$)/.test(mp);
for (const mp of [...new Set(mountPoints)]) {
  if (keep(mp)) continue;
  const r = spawnSync('mount', ['-o', 'remount,bind,ro', mp], { encoding: 'utf8' });
  if (r.status !== 0 && mp === '/') {
    process.stderr.write(`assay box: could not make / read-only: ${r.stderr.trim()}\n`);
    process.exit(70);
  }
}
must('mount', ['-t', 'tmpfs', '-o', `size=${box.limits.shmBytes},mode=1777,nosuid,nodev`, 'tmpfs', '/dev/shm']);

// The only way out: 127.0.0.1:<port> in here is the runner's egress proxy out there.
const forwarder = net.createServer((client) => {
  const upstream = net.connect(box.socket);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
});
forwarder.listen(box.proxyPort, '127.0.0.1', () => {
  const l = box.limits;
  const child = (tenant = spawn(
    'setpriv',
    ['--no-new-privs', '--', 'prlimit', `--cpu=${l.cpuSeconds}`, `--as=${l.addressSpaceBytes}`, `--fsize=${l.fileSizeBytes}`, `--nproc=${l.processes}`, '--nofile=4096', '--core=0', '--', ...box.command],
    { cwd: box.dir, env: box.env, uid: box.uid, gid: box.gid, stdio: ['ignore', 'inherit', 'inherit', 3] },
  ));
  const stop = () => child.kill('SIGKILL');
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  child.on('error', (err) => {
    process.stderr.write(`assay box: could not start the suite: ${err.message}\n`);
    process.exit(70);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 9 : 1)));
});
