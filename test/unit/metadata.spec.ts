import { expect } from 'chai';
import { declaredMetadata, isReadAt, isSafeMetadataKey } from '../../shared/domain/metadata.js';
import type { MetadataKey } from '../../shared/domain/types.js';

const keys: MetadataKey[] = [
  { key: 'channel', type: 'string', scope: 'order' },
  { key: 'visits', type: 'number', scope: 'order' },
  { key: 'vip', type: 'boolean', scope: 'order' },
  { key: 'color', type: 'string', scope: 'item' },
  { key: 'tier', type: 'string', scope: 'both' },
  // Declared by a careless admin: still never copied.
  { key: '__proto__', type: 'string', scope: 'order' },
  { key: '$where', type: 'string', scope: 'order' },
  { key: 'a.b', type: 'string', scope: 'order' },
  { key: 'constructor', type: 'string', scope: 'order' },
];

describe('metadata: declaredMetadata (docs/decisions.md#19)', () => {
  const rows: [string, unknown, 'order' | 'item', Record<string, unknown>][] = [
    ['declared keys with the declared types', { channel: 'app', visits: 3, vip: true }, 'order', { channel: 'app', visits: 3, vip: true }],
    ['a declared key with the wrong type (dropped)', { channel: 42, visits: '3', vip: 'true' }, 'order', {}],
    ['an undeclared key (dropped)', { channel: 'app', coupon_hack: 'x' }, 'order', { channel: 'app' }],
    ['a key declared for the other scope (dropped)', { color: 'red', channel: 'app' }, 'item', { color: 'red' }],
    ['a key declared for both levels, read on an item', { tier: 'gold', channel: 'app' }, 'item', { tier: 'gold' }],
    ['a key declared for both levels, read on the order', { tier: 'gold', color: 'red' }, 'order', { tier: 'gold' }],
    [
      '$where and dotted keys, even when declared (dropped)',
      { $where: 'sleep(1)', 'a.b': 'x', channel: 'web' },
      'order',
      { channel: 'web' },
    ],
    ['a nested object as a declared string (dropped)', { channel: { $gt: '' } }, 'order', {}],
    ['an infinite number (dropped)', { visits: Infinity }, 'order', {}],
    ['not an object', 'channel=app', 'order', {}],
    ['an array', ['app'], 'order', {}],
    ['null', null, 'order', {}],
  ];
  for (const [label, sent, scope, expected] of rows) {
    it(`when ${label}, then ${JSON.stringify(expected)}`, () => {
      expect(declaredMetadata(sent, keys, scope)).to.deep.equal(expected);
    });
  }

  it('when __proto__ and constructor arrive as own keys (JSON.parse), then nothing is copied and no prototype changes', () => {
    const sent: unknown = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": "x", "channel": "app"}');
    const out = declaredMetadata(sent, keys, 'order');
    expect(out).to.deep.equal({ channel: 'app' });
    expect(Object.getPrototypeOf(out)).to.equal(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('when a key is only inherited (not an own property), then it is not read', () => {
    const sent = Object.create({ channel: 'inherited' }) as object;
    expect(declaredMetadata(sent, keys, 'order')).to.deep.equal({});
  });

  it('when the metadata has a null prototype, then declared keys are still read', () => {
    const sent = Object.assign(Object.create(null) as object, { channel: 'app' });
    expect(declaredMetadata(sent, keys, 'order')).to.deep.equal({ channel: 'app' });
  });
});

describe('metadata: isReadAt (where a declared key is read)', () => {
  const rows: [MetadataKey['scope'], 'order' | 'item', boolean][] = [
    ['both', 'order', true],
    ['both', 'item', true],
    ['order', 'order', true],
    ['order', 'item', false],
    ['item', 'item', true],
    ['item', 'order', false],
  ];
  for (const [scope, level, read] of rows)
    it(`when a key is declared for ${scope} and read on the ${level}, then ${read}`, () => expect(isReadAt(scope, level)).to.equal(read));
});

describe('metadata: isSafeMetadataKey', () => {
  const rows: [string, boolean][] = [
    ['channel', true],
    ['price_tier', true],
    ['__proto__', false],
    ['constructor', false],
    ['prototype', false],
    ['$where', false],
    ['a$b', false],
    ['a.b', false],
    ['', false],
  ];
  for (const [key, safe] of rows) it(`when the key is "${key}", then safe is ${safe}`, () => expect(isSafeMetadataKey(key)).to.equal(safe));
});
