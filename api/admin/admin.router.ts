import { Router } from 'express';
import type { Services } from '../../shared/services.js';

/** Admin API (docs/admin-api.md). */
export function adminRouter(_services: Services): Router {
  return Router();
}
