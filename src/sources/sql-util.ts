import type { PushdownCapabilities } from './types.js';

/** Every SQL source here runs whole statements in its dialect, so fragments may carry anything. */
export const SQL_CAPABILITIES: PushdownCapabilities = {
  fullStatements: true,
  projection: true,
  filters: 'exact',
  limit: true,
};
