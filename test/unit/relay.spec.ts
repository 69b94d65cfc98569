/**
 * The relay the fault tests put in front of a server they kill (test/support/relay.ts): what a
 * client sees of the server's death must be what it would see without the relay, never a wait for
 * an answer that cannot come. If the relay closes its side while its other thread is blocked
 * reading that socket, Linux defers the close until the read returns — which, with a client waiting
 * for a reply, it never does, so the client gets neither the reset nor a FIN
 * (test/chaos/database-kill.spec.ts, "no final answer").
 */
import net from 'node:net';
import { expect } from 'chai';
import { Relay } from '../support/relay.js';

/** A server that ends each connection as `end` says once the client's first bytes arrive. */
async function server(end: (socket: net.Socket) => void): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => end(socket));
  });
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  return {
    port: (srv.address() as net.AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}

/** Connects through the relay, sends a request and waits for how the connection ends (no reply ever comes). */
function requestThrough(port: number): Promise<{ error: string | null; ended: boolean }> {
  return new Promise((resolve) => {
    const client = net.connect(port, '127.0.0.1');
    let error: string | null = null;
    let ended = false;
    client.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    client.on('end', () => (ended = true));
    client.on('close', () => resolve({ error, ended }));
    client.on('connect', () => client.write('a request that is never answered'));
  });
}

describe('the fault tests relay', function () {
  // Each case ends in milliseconds; the timeout only stops a hang (the defect) from holding the run.
  this.timeout(15_000);
  let relay: Relay | undefined;
  let upstream: { port: number; close: () => void } | undefined;
  afterEach(async () => {
    await relay?.stop();
    upstream?.close();
  });

  it('when the server resets a connection with a request in flight, then the client is reset too', async () => {
    upstream = await server((socket) => socket.resetAndDestroy());
    relay = await Relay.start(upstream.port);
    expect(await requestThrough(relay.port)).to.deep.equal({ error: 'ECONNRESET', ended: false });
  });

  it('when the server closes a connection with a request in flight, then the client gets its FIN', async () => {
    upstream = await server((socket) => socket.end());
    relay = await Relay.start(upstream.port);
    expect(await requestThrough(relay.port)).to.deep.equal({ error: null, ended: true });
  });

  it('when the relay blackholes, then open connections pass nothing and stay open while new ones pass, and heal delivers what was held', async () => {
    upstream = await server((socket) => {
      socket.write('first');
      socket.on('data', (d) => socket.write(d));
    });
    relay = await Relay.start(upstream.port);
    const open = await echoClient(relay.port);
    expect(await open.exchange('first')).to.equal('first');
    await relay.blackhole();
    // Nothing comes back, and the connection is neither ended nor reset: the client can only wait.
    const held = open.exchange('held');
    const quiet = await Promise.race([held.then(() => 'answered'), new Promise((r) => setTimeout(() => r('quiet'), 500))]);
    expect({ quiet, ended: open.ended(), error: open.error() }).to.deep.equal({ quiet: 'quiet', ended: false, error: null });
    const fresh = await echoClient(relay.port);
    expect(await fresh.exchange('first')).to.equal('first');
    expect(await fresh.exchange('fresh')).to.equal('fresh');
    await relay.heal();
    expect(await held).to.equal('held');
    open.close();
    fresh.close();
  });
});

/** A client that sends `first` and reads what comes back, one exchange at a time. */
async function echoClient(port: number) {
  const client = net.connect(port, '127.0.0.1');
  let error: string | null = null;
  let ended = false;
  client.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
  client.on('end', () => (ended = true));
  await new Promise<void>((ok) => client.once('connect', () => ok()));
  return {
    exchange: (text: string) =>
      new Promise<string>((ok) => {
        client.once('data', (d: Buffer) => ok(d.toString()));
        client.write(text);
      }),
    ended: () => ended,
    error: () => error,
    close: () => client.destroy(),
  };
}
