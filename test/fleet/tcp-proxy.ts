// A TCP proxy in front of the test cluster, for faults a client must ride out: `down()` cuts
// every open connection and drops each new one at once (a server restarting: connections fail
// until it is back), counting the attempts; `up()` forwards again. Its URL is the database URL
// with the proxy's port.
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  readonly url: string;
  /** Connections dropped while down (attempts made during the outage). */
  readonly refused: number;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(databaseUrl: string): Promise<TcpProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let isDown = false;
  let refused = 0;
  const server: Server = createServer((inbound) => {
    if (isDown) {
      refused++;
      inbound.destroy();
      return;
    }
    const outbound = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(databaseUrl);
  url.port = String(port);
  return {
    url: url.toString(),
    get refused() {
      return refused;
    },
    down() {
      isDown = true;
      for (const s of sockets) s.destroy();
    },
    up() {
      isDown = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
