/** The request's context for the one audit writer lives beside it, with the workers. */
export { requestContext, runInRequestContext, type RequestContext } from '@farm/workers';
