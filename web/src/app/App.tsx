import { Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { LandingPage } from '../features/landing/LandingPage';
import { lazyNamed } from '../shared/lazy';
import { SiteProviders } from './site-providers';

const Console = lazyNamed(() => import('./console/Console'), 'Console');

/**
 * The landing page, or the console (sign-in and every screen after it, see routes.tsx). The landing page comes
 * with the first script, so its call to action shows without a second round of fetches; the console loads when a
 * visitor first opens one of its pages, so the landing page carries none of it.
 */
export function App() {
  return (
    <BrowserRouter>
      <SiteProviders>
        <Suspense fallback={null}>
          <Routes>
            <Route path="/" element={<LandingPage />} />
            <Route path="*" element={<Console />} />
          </Routes>
        </Suspense>
      </SiteProviders>
    </BrowserRouter>
  );
}
