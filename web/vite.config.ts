import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const apiTarget = process.env.API_URL ?? 'http://localhost:3000';
// Host is kept as the browser sent it, so the API's same-origin check on cookie writes sees matching Origin and Host.
const proxy = {
  '/api': { target: apiTarget, changeOrigin: false },
  '/socket.io': { target: apiTarget, ws: true },
};

export default defineConfig({
  plugins: [react()],
  server: { proxy },
  preview: { proxy },
  build: {
    outDir: 'dist',
  },
});
