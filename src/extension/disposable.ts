// The one dispose(): a class extends Disposable and register()s what it owns (an event emitter, a
// subscription, a status bar item, a timer's clean-up) as it makes it. dispose() releases them once,
// newest first, so a subscription goes before the emitter it feeds. No vscode import: plain Node
// tests use it too.

/** Anything with a dispose(), like vscode.Disposable. */
export interface DisposableLike {
  dispose(): unknown;
}

export class Disposable implements DisposableLike {
  private readonly owned: DisposableLike[] = [];
  private isDisposed = false;

  /** A Disposable that runs `fn` once when disposed. */
  static from(fn: () => void): Disposable {
    const d = new Disposable();
    d.register(fn);
    return d;
  }

  /** True once dispose() has run: late callbacks check it before touching what was released. */
  protected get disposed(): boolean {
    return this.isDisposed;
  }

  /** Releases `owned` (or runs a clean-up function) when this object is disposed; disposes it at once if it already was. */
  register<T extends DisposableLike>(owned: T): T;
  register(cleanUp: () => void): DisposableLike;
  register(owned: DisposableLike | (() => void)): DisposableLike {
    const d = typeof owned === 'function' ? { dispose: owned } : owned;
    if (this.isDisposed) d.dispose();
    else this.owned.push(d);
    return d;
  }

  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // One failing clean-up must not keep the others from running.
      }
    }
  }
}
