import type { ReactNode } from 'react';

export interface Brand {
  name: string;
  mark: ReactNode;
}

const stroke = { fill: 'none', stroke: 'currentColor', strokeWidth: 2.5 } as const;

/** The height of a brand's tile in the carousel, which is the carousel's height. */
export const BRAND_TILE_HEIGHT = 64;

/** Ten customer marks: simple shapes beside each wordmark, drawn in the current text colour. */
export const brands: readonly Brand[] = [
  { name: 'Nimbus', mark: <path d="M6 20a6 6 0 0 1 1-12 8 8 0 0 1 15 2 5 5 0 0 1 0 10z" {...stroke} /> },
  { name: 'Vertex', mark: <path d="M4 6l10 16L24 6" {...stroke} /> },
  { name: 'Lumen', mark: <circle cx="14" cy="14" r="8" fill="currentColor" /> },
  { name: 'Orbit', mark: <ellipse cx="14" cy="14" rx="11" ry="5" transform="rotate(-30 14 14)" {...stroke} /> },
  { name: 'Kinetic', mark: <path d="M6 4v20M6 14l14-10M6 14l14 10" {...stroke} /> },
  { name: 'Halcyon', mark: <path d="M3 16c4-6 8-6 11 0s7 6 11 0" {...stroke} /> },
  { name: 'Quartz', mark: <path d="M14 3l10 8-10 14L4 11z" {...stroke} /> },
  { name: 'Pulse', mark: <path d="M2 14h6l3-7 5 14 3-7h7" {...stroke} /> },
  { name: 'Aether', mark: <path d="M14 4l10 20H4z" fill="currentColor" /> },
  { name: 'Summit', mark: <path d="M2 24l8-12 5 6 4-5 7 11z" fill="currentColor" /> },
];
