import { rm } from 'node:fs/promises';

/**
 * Local files of tables that were replaced, converted or dropped: deleted once no query
 * that may be reading them runs, and never while a table still reads them (with the
 * catalog's byte store two tables with identical bytes share one cached file).
 */
export class RetiredFiles {
  private paths: string[] = [];

  constructor(private readonly inUse: (path: string) => boolean) {}

  get size(): number {
    return this.paths.length;
  }

  add(path: string): void {
    this.paths.push(path);
  }

  async sweep(): Promise<void> {
    const paths = this.paths;
    this.paths = [];
    await Promise.all(paths.filter((p) => !this.inUse(p)).map((p) => rm(p, { force: true })));
  }
}
