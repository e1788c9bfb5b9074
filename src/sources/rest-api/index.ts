import type { EngineSpec } from '../engine-spec.js';
import { type RestApiParams, restApiParamDocs, restApiParamsSchema } from './params.js';
import { RestApiSource } from './source.js';

export type { RestApiParams } from './params.js';
export { RestApiSource } from './source.js';

export const REST_API_ENGINE = 'rest_api';

export const restApiEngine: EngineSpec<RestApiParams> = {
  name: REST_API_ENGINE,
  description: 'A REST API called through POST /api/integrations/{name}/passthrough (no SQL tables)',
  params: restApiParamsSchema,
  secrets: ['bearer_token', 'default_headers'],
  paramDocs: restApiParamDocs,
  create: (name, params) => new RestApiSource(name, params),
};
