import type { RequestHandler } from 'express';
import type { Services } from '../../shared/services.js';
import { upsertOwnCustomer } from '../../shared/usecases/customer-upsert.usecase.js';

/** PUT /customers/{source_id}: 201 when the customer was created, 200 when it was updated. */
export function upsertCustomerRoute(services: Services): RequestHandler {
  return async (req, res) => {
    const answer = await upsertOwnCustomer(services, res.locals.app, {
      sourceId: String(req.params.sourceId),
      body: req.body,
      requestId: String(req.id),
    });
    res.status(answer.created ? 201 : 200).json(answer);
  };
}
