// factgraph for the Vercel AI SDK (`factgraph/ai`): tools an agent calls, and a middleware
// that fills the prompt from memory and remembers each exchange. Needs `ai` (7.x) and `zod`.

export {
  factgraphTools,
  type FactgraphTools,
  type FactgraphToolsOptions,
  type ForgetToolInput,
  type ForgetToolOutput,
  type RememberToolInput,
  type RememberToolOutput,
  type SearchToolInput,
  type SearchToolOutput,
} from './tools.js';
export { factgraphMiddleware, MEMORY_HEADER, type FactgraphMiddlewareOptions } from './middleware.js';
