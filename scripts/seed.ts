/** `npm run seed`: loads the demo data set into MONGODB_URI and prints the credentials once. */
import { isDomainError } from '../shared/errors.js';
import { withServices } from './cli-context.js';
import { loadDemoData } from './demo-data.js';

withServices(async (services) => {
  const demo = await loadDemoData(services, (line) => process.stderr.write(`seed: ${line}\n`));
  const auth = Buffer.from(`${demo.apiKey}:${demo.secret}`).toString('base64');
  process.stdout.write(
    [
      `application: ${demo.application.id}`,
      `API key:     ${demo.apiKey}`,
      `secret:      ${demo.secret}   (shown once)`,
      '',
      'try:',
      `  curl -s -X POST http://localhost:${services.config.port}/coupons/list/all -H 'authorization: Basic ${auth}' -H 'content-type: application/json' -d '{"source_id":"cust_1"}'`,
      '',
    ].join('\n'),
  );
}).catch((err) => {
  process.stderr.write(`seed failed: ${isDomainError(err) ? `${err.message}: ${err.details}` : String(err)}\n`);
  process.exit(1);
});
