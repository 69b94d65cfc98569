/**
 * The relay's process (see relay.ts): listens on 127.0.0.1 port 0, reports the port over IPC, and
 * joins every connection to 127.0.0.1:<target>, the target being the last one the parent sent.
 * A server behind it that dies cuts its connections here too (its FIN passed on as a FIN, an error
 * as a reset); while nothing listens on the target, a connection is accepted and reset at once.
 * Exits when the parent goes.
 */
import net from 'node:net';

let target = Number(process.argv[2]);

const server = net.createServer({ pauseOnConnect: true, noDelay: true }, (client) => {
  const upstream = net.connect({ host: '127.0.0.1', port: target, noDelay: true });
  upstream.once('connect', () => {
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  upstream.on('error', () => {
    if (!client.destroyed) client.resetAndDestroy();
  });
  upstream.on('close', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
});

process.on('message', (m: { target?: number }) => {
  if (typeof m.target !== 'number') return;
  target = m.target;
  process.send!({ target });
});
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as net.AddressInfo).port }));
