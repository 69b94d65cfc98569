import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { DestinationPolicy } from '../../shared/domain/webhook-destination.js';
import { createWebhookSender, destinationRefusal } from '../../shared/net/webhook-client.js';

/** The outbound client alone, against real HTTP servers on loopback (no database). */
describe('webhook client', function () {
  this.timeout(20_000);
  let server: Server;
  let port: number;
  let connections = 0;
  let handler: Parameters<typeof createServer>[1] = (_req, res) => res.end();
  before(async () => {
    server = createServer((req, res) => handler!(req, res));
    server.on('connection', (socket) => {
      connections++;
      socket.on('close', () => connections--);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const open = createWebhookSender({ policy: new DestinationPolicy(['127.0.0.0/8']), timeoutMs: 500 });
  const strict = createWebhookSender({ policy: new DestinationPolicy([]), timeoutMs: 500 });
  const url = () => `http://127.0.0.1:${port}/hook`;

  it('when the receiver answers 2xx, then the attempt succeeds and the body and headers were sent as given', async () => {
    let seen = { body: '', type: '', length: '' };
    handler = (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen = { body, type: String(req.headers['content-type']), length: String(req.headers['content-length']) };
        res.writeHead(204).end();
      });
    };
    expect(await open(url(), '{"a":"é"}', { 'content-type': 'application/json' })).to.deep.equal({ status: 204, error: null });
    expect(seen).to.deep.equal({ body: '{"a":"é"}', type: 'application/json', length: '10' });
  });

  it('when the receiver redirects, then the redirect is not followed and the attempt fails', async () => {
    handler = (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    expect(await open(url(), '{}', {})).to.deep.equal({ status: 302, error: 'receiver answered 302 (redirects are not followed)' });
  });

  it('when the receiver does not answer within the budget, then the attempt fails without a status', async () => {
    handler = () => undefined;
    expect(await open(url(), '{}', {})).to.deep.equal({ status: null, error: 'no answer within 500 ms' });
  });

  it('when the receiver answers 200 but never ends its body, then the attempt succeeds and the connection is closed after the budget', async () => {
    handler = (_req, res) => res.writeHead(200).write('partial');
    expect(await open(url(), '{}', {})).to.deep.equal({ status: 200, error: null });
    await new Promise((r) => setTimeout(r, 800));
    expect(connections).to.equal(0);
  });

  it('when loopback is not allowed, then an IP literal and a name resolving to it are refused before connecting', async () => {
    handler = (_req, res) => res.end();
    const before = connections;
    expect(await strict(url(), '{}', {})).to.deep.equal({ status: null, error: 'destination refused: 127.0.0.1 is a loopback address' });
    const byName = await strict(`http://localhost:${port}/hook`, '{}', {});
    expect(byName.status).to.equal(null);
    expect(byName.error).to.match(/^destination refused: localhost resolves to .* loopback address$/);
    expect(connections).to.equal(before);
    expect(await destinationRefusal(`http://localhost:${port}/hook`, new DestinationPolicy([]))).to.match(/^url destination refused/);
    expect(await destinationRefusal(url(), new DestinationPolicy(['127.0.0.0/8']))).to.equal(null);
  });

  it('when nothing listens, then the attempt fails with the network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await open(`http://127.0.0.1:${freePort}/`, '{}', {})).to.deep.equal({ status: null, error: 'network error: ECONNREFUSED' });
  });
});
