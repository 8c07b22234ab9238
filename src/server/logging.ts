// Request/response logging in OPA's style ("Received request." / "Sent response."),
// at info level with a per-process request id.

import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Env } from './context.js';

export function requestLogger(logger: Logger): MiddlewareHandler<Env> {
  let reqId = 0;
  return async (c, next) => {
    if (!logger.isLevelEnabled('info')) return next();
    const id = ++reqId;
    const start = process.hrtime.bigint();
    const url = c.req.url;
    const qi = url.indexOf('?');
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    const path = url.slice(pathStart, qi < 0 ? undefined : qi);
    logger.info({ req_id: id, req_method: c.req.method, req_path: path }, 'Received request.');
    await next();
    logger.info(
      {
        req_id: id,
        req_method: c.req.method,
        req_path: path,
        resp_status: c.res.status,
        resp_duration: Number(process.hrtime.bigint() - start) / 1e6,
      },
      'Sent response.',
    );
  };
}
