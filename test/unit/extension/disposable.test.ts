// The Disposable base: what a class registers is released once, newest first, even when one
// clean-up throws; something registered after dispose() is released at once.

import * as assert from 'node:assert/strict';
import { Disposable } from '../../../src/extension/disposable';

class Owner extends Disposable {
  readonly order: string[] = [];
  constructor() {
    super();
    this.register({ dispose: () => this.order.push('emitter') });
    this.register(() => {
      throw new Error('a failing clean-up');
    });
    this.register(() => this.order.push('subscription'));
  }
  get released(): boolean {
    return this.disposed;
  }
}

describe('Disposable', () => {
  it('releases what was registered once, newest first, past a failing clean-up', () => {
    const owner = new Owner();
    assert.equal(owner.released, false);
    owner.dispose();
    owner.dispose();
    assert.deepEqual(owner.order, ['subscription', 'emitter']);
    assert.equal(owner.released, true);
  });

  it('releases at once what is registered after dispose()', () => {
    const owner = new Owner();
    owner.dispose();
    let released = 0;
    owner.register(() => released++);
    assert.equal(released, 1);
    const fromFn = Disposable.from(() => released++);
    fromFn.dispose();
    fromFn.dispose();
    assert.equal(released, 2);
  });
});
