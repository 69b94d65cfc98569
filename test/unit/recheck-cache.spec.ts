import { expect } from 'chai';
import { RecheckCache } from '../../shared/cache/recheck-cache.js';

/** A load that answers when told to, counting its calls. */
function loader() {
  const pending: ((v: string) => void)[] = [];
  let calls = 0;
  return {
    load: (key: string) => {
      calls++;
      return new Promise<string>((resolve) => pending.push((v) => resolve(`${key}=${v}`)));
    },
    answer: (v: string) => pending.shift()!(v),
    get calls() {
      return calls;
    },
  };
}

describe('RecheckCache', () => {
  it('when a key is read twice while it loads, then one load serves both', async () => {
    const l = loader();
    const cache = new RecheckCache(l.load, 1000);
    const both = Promise.all([cache.get('a'), cache.get('a')]);
    l.answer('1');
    expect(await both).to.deep.equal(['a=1', 'a=1']);
    expect(await cache.get('a')).to.equal('a=1');
    expect(l.calls).to.equal(1);
  });

  it('when a key is forgotten while it loads, then that load is not kept and the next read loads anew', async () => {
    const l = loader();
    const cache = new RecheckCache(l.load, 1000);
    const stale = cache.get('a');
    cache.forget('a');
    const fresh = cache.get('a');
    l.answer('old');
    l.answer('new');
    expect(await stale).to.equal('a=old');
    expect(await fresh).to.equal('a=new');
    expect(await cache.get('a')).to.equal('a=new');
    expect(l.calls).to.equal(2);
  });

  it('when checkMs has passed or the key was forgotten, then it is read again', async () => {
    let now = 0;
    let version = 0;
    const cache = new RecheckCache(
      async (k) => `${k}${++version}`,
      1000,
      true,
      10,
      () => now,
    );
    expect(await cache.get('a')).to.equal('a1');
    now = 999;
    expect(await cache.get('a')).to.equal('a1');
    now = 1000;
    expect(await cache.get('a')).to.equal('a2');
    cache.forget('a');
    expect(await cache.get('a')).to.equal('a3');
  });

  it('when a load fails, then nothing is kept and the next read loads again', async () => {
    let fail = true;
    const cache = new RecheckCache(async (k) => {
      if (fail) throw new Error('database away');
      return k;
    }, 1000);
    await cache.get('a').then(
      () => expect.fail('the load failed'),
      (err: Error) => expect(err.message).to.equal('database away'),
    );
    fail = false;
    expect(await cache.get('a')).to.equal('a');
  });
});
