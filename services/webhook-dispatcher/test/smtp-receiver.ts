import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

// A real SMTP server in its own process for the e-mail tests: plain SMTP on a
// free loopback port, AUTH required (user `assay`, the password in
// SMTP_TEST_PASSWORD), every accepted message printed on stdout as one JSON
// line {from, to, raw}. The first line is {port}.
const password = process.env.SMTP_TEST_PASSWORD ?? '';
const server = new SMTPServer({
  secure: false,
  disabledCommands: ['STARTTLS'],
  allowInsecureAuth: true,
  authMethods: ['PLAIN', 'LOGIN'],
  onAuth(auth, _session, callback) {
    if (auth.username === 'assay' && auth.password === password) return callback(null, { user: 'assay' });
    return callback(new Error('Invalid username or password'));
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : null;
      const to = session.envelope.rcptTo.map((r) => r.address);
      process.stdout.write(`${JSON.stringify({ from, to, raw: Buffer.concat(chunks).toString('utf8') })}\n`);
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.server.address() as AddressInfo).port })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
