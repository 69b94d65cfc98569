/**
 * A client is never cut off without an answer: a request sent on a keep-alive connection before
 * the server's idle timeout is answered even when the server's event loop was busy past that
 * timeout. Node alone fires the idle timer first when the loop comes back and destroys the socket
 * under the unread request (nodejs/node#43456): the client gets ECONNRESET. The client is a
 * process of its own, so that it sends while the server's loop is busy.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { createHttpServer, listen } from '../../api/http-server.js';

/** Sends a request, then another one `gapMs` after the first answer on the same connection; prints what happened. */
const CLIENT = `
const net = require('node:net');
const [port, gapMs] = process.argv.slice(1).map(Number);
const socket = net.connect(port, '127.0.0.1');
const request = 'GET /ping HTTP/1.1\\r\\nHost: x\\r\\nConnection: keep-alive\\r\\n\\r\\n';
let received = '', answers = 0, ended = false;
const done = (how) => { if (!ended) { ended = true; console.log(JSON.stringify({ answers, how, hint: (received.match(/keep-alive: (timeout=\\d+)/i) || [])[1] })); process.exit(0); } };
socket.on('data', (c) => {
  received += c;
  answers = (received.match(/"ok":true/g) || []).length;
  if (answers === 1 && c.includes('"ok":true')) setTimeout(() => socket.write(request), gapMs);
  if (answers === 2) done('answered');
});
socket.on('error', (e) => done(e.code));
socket.on('close', () => done('closed'));
socket.write(request);
`;

const busyFor = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until); // the loop is blocked, as on a starved machine
};

describe('keep-alive connections and a busy event loop', function () {
  this.timeout(20_000);

  it('when a request arrives before the idle timeout while the loop is busy past it, then the request is answered, not reset', async () => {
    const app = express();
    app.get('/ping', (_req, res) => void res.json({ ok: true }));
    const server = await listen(createHttpServer(app, { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 65_000 }), 0, '127.0.0.1');
    // Node 20 closes an idle connection 1 s after the announced timeout: here at 1.3 s.
    server.keepAliveTimeout = 300;
    const { port } = server.address() as AddressInfo;
    try {
      const client = spawn(process.execPath, ['-e', CLIENT, String(port), '600'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      client.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      // When the first answer is out, the loop turns busy (in its check phase: the next turn runs
      // its timers before it polls the sockets) from 300 ms to 2.3 s; the client sends at 600 ms.
      server.once('request', (_req, res) => res.once('finish', () => setTimeout(() => setImmediate(() => busyFor(2000)), 300)));
      await new Promise<void>((r) => client.once('exit', () => r()));
      expect(JSON.parse(out.trim())).to.deep.equal({ answers: 2, how: 'answered', hint: 'timeout=32' });
    } finally {
      server.close();
    }
  });

  it('when a client reuses a connection idle past the timeout it was told, then the request is answered: the server closes last', async () => {
    const app = express();
    app.get('/ping', (_req, res) => void res.json({ ok: true }));
    // Held 4 s, announced as 2 s: a client slow to notice its own 2 s (here 3 s idle) is still answered.
    const server = await listen(createHttpServer(app, { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 4000 }), 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const run = async (gapMs: number) => {
      const client = spawn(process.execPath, ['-e', CLIENT, String(port), String(gapMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      client.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      await new Promise<void>((r) => client.once('exit', () => r()));
      return JSON.parse(out.trim()) as unknown;
    };
    try {
      expect(await run(3000)).to.deep.equal({ answers: 2, how: 'answered', hint: 'timeout=2' });
      // Past what the server holds (4 s, and Node's own second after it), it closes the idle connection.
      expect(await run(6000)).to.deep.equal({ answers: 1, how: 'closed', hint: 'timeout=2' });
    } finally {
      server.close();
    }
  });

  it('when the server drains with a request in hand, then its answer says Connection: close and the server closes without waiting out the idle timeout', async () => {
    const app = express();
    app.get('/slow', (_req, res) => void setTimeout(() => res.json({ ok: true }), 300));
    const server = await listen(createHttpServer(app, { requestTimeoutMs: 10_000, keepAliveTimeoutMs: 600_000 }), 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString()));
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    // Held open (600 s here) the kept connection would keep the close waiting past the test's timeout.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ended; // the server ended the connection after its answer
    expect(received).to.match(/^HTTP\/1\.1 200/);
    expect(received).to.match(/\r\nConnection: close\r\n/i);
    expect(received).to.not.match(/keep-alive/i);
  });
});
