import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';

/**
 * A DNS server for a private network namespace: answers A and AAAA from a
 * table the test changes at will (a name that resolved to a public address
 * when a webhook was registered, and to a private one now), NXDOMAIN for
 * everything else. UDP only, which is what getaddrinfo asks first.
 */
export class TestDnsServer {
  /** name → addresses; a function gets the number of A queries so far (first answer public, then private). */
  readonly records = new Map<string, string[] | ((aQueries: number) => string[])>();
  private readonly aQueries = new Map<string, number>();
  private socket: dgram.Socket | undefined;

  async start(host = '127.0.0.1', port = 53): Promise<void> {
    const socket = dgram.createSocket('udp4');
    socket.on('message', (msg, rinfo) => {
      let query: dnsPacket.Packet;
      try {
        query = dnsPacket.decode(msg);
      } catch {
        return;
      }
      const answers: dnsPacket.Answer[] = [];
      let known = false;
      for (const q of query.questions ?? []) {
        const name = q.name.toLowerCase().replace(/\.$/, '');
        const entry = this.records.get(name);
        if (!entry) continue;
        known = true;
        if (q.type === 'A') this.aQueries.set(name, (this.aQueries.get(name) ?? 0) + 1);
        const addresses = typeof entry === 'function' ? entry(this.aQueries.get(name) ?? 0) : entry;
        for (const address of addresses) {
          const v6 = address.includes(':');
          if ((q.type === 'A' && !v6) || (q.type === 'AAAA' && v6)) answers.push({ type: q.type, name: q.name, ttl: 0, class: 'IN', data: address } as dnsPacket.Answer);
        }
      }
      const reply = dnsPacket.encode({
        id: query.id,
        type: 'response',
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (known ? 0 : 3), // rcode 3: NXDOMAIN
        questions: query.questions,
        answers,
      });
      socket.send(reply, rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => resolve());
    });
    this.socket = socket;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.socket ? this.socket.close(() => resolve()) : resolve()));
  }
}
