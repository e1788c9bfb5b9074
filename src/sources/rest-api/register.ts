import { registerEngine } from '../registry.js';
import { restApiEngine } from './index.js';

/** Adds the rest_api engine to the registry. Idempotent; importing this module calls it. */
export function registerRestApiEngine(): void {
  registerEngine(restApiEngine);
}

registerRestApiEngine();
