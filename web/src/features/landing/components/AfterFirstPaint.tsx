import { Suspense, useEffect, useState, type ReactNode } from 'react';

export interface AfterFirstPaintProps {
  /** Parts of the page that may arrive a moment later: decoration, or what sits below the fold. */
  children: ReactNode;
  /** Holds their place meanwhile, so nothing around them moves when they arrive. */
  placeholder?: ReactNode;
}

/**
 * Shows its children from just after the page's first paint: a lazily loaded part starts loading only then, so the
 * headline and the call to action are on screen without waiting for it.
 */
export function AfterFirstPaint({ children, placeholder = null }: AfterFirstPaintProps) {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    // The frame callback runs before the next paint; the timeout after it runs once that paint is done.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setPainted(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, []);
  return painted ? <Suspense fallback={placeholder}>{children}</Suspense> : placeholder;
}
