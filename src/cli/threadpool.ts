// Imported first by main.ts. DuckDB queries, file I/O and DNS share libuv's pool (4 threads
// by default); a federated query holds one per fragment, so the server wants more. libuv
// reads this once, at the pool's first use, which has not happened yet here.
process.env.UV_THREADPOOL_SIZE ??= '16';
