import type { Page } from './types.js';

/**
 * What `list()` returns: awaited, the first page (`{ data, next_cursor }`); iterated with `for await`, every
 * item of every page, following `next_cursor` (docs/authentication.md). The first page is fetched once, on first use.
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | undefined;

  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>, private readonly cursor?: string) {}

  private firstPage(): Promise<Page<T>> {
    return (this.first ??= this.fetchPage(this.cursor));
  }

  then<A = Page<T>, B = never>(
    onfulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  /** Every page, from this one on. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page = await this.firstPage();
    for (;;) {
      yield page;
      if (!page.next_cursor) return;
      page = await this.fetchPage(page.next_cursor);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }
}
