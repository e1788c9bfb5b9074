/**
 * A stdio MCP server over MariaEngine, spawned by the stdio tests the way an MCP client
 * spawns `tributary --mcp-stdio`: MCP on stdout, logs on stderr.
 */
import pino from 'pino';
import { createMcpServerFactory } from '../../../../src/mcp/server.js';
import { serveMcpStdio } from '../../../../src/mcp/transports/stdio.js';
import { testConfig, testDeps } from './app.js';
import { MariaEngine } from './maria-engine.js';

const databases = (process.env.MCP_TEST_DATABASES ?? '').split(',').filter(Boolean);
const logger = pino({ level: 'info' }, pino.destination(2));
const deps = testDeps(new MariaEngine(databases), testConfig(), logger);
deps.catalog = { close: async () => {} } as typeof deps.catalog;
await serveMcpStdio(deps, createMcpServerFactory(deps));
