import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    // A refused request (401, 403, 404) will not change by asking again; anything else once more.
    queries: {
      retry: (count, err) => count < 1 && !(err instanceof Error && 'status' in err && Number(err.status) < 500),
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
