// A TCP proxy in front of PostgreSQL that forwards everything except asynchronous notifications
// (NotificationResponse, message type 'A', server → client): what a client sees behind a pooler
// in transaction mode (PgBouncer), where LISTEN is accepted and no notification ever arrives.
// Frames the server's byte stream by the protocol's message header (type byte + int32 length);
// the client must not ask for TLS (node-postgres does not without `ssl`), so the stream is framed
// from its first byte. Counts what it dropped, so a test can say notifications were sent.
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface DroppingProxy {
  /** The upstream URL with host and port replaced by the proxy's. */
  readonly url: string;
  /** Notifications dropped so far. */
  dropped(): number;
  close(): Promise<void>;
}

const NOTIFICATION = 0x41; // 'A'

export async function notificationDroppingProxy(upstreamUrl: string): Promise<DroppingProxy> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<Socket>();
  let dropped = 0;
  const server: Server = createServer((client) => {
    const db = createConnection({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    sockets.add(client);
    sockets.add(db);
    let pending = Buffer.alloc(0);
    db.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const forward: Buffer[] = [];
      while (pending.length >= 5) {
        const size = 1 + pending.readInt32BE(1);
        if (pending.length < size) break;
        const message = pending.subarray(0, size);
        if (message[0] === NOTIFICATION) dropped++;
        else forward.push(message);
        pending = pending.subarray(size);
      }
      if (forward.length > 0) client.write(Buffer.concat(forward));
    });
    client.pipe(db);
    const end = (): void => {
      client.destroy();
      db.destroy();
      sockets.delete(client);
      sockets.delete(db);
    };
    client.on("close", end);
    db.on("close", end);
    client.on("error", end);
    db.on("error", end);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  const url = new URL(upstreamUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    dropped: () => dropped,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
