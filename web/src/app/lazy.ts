import { lazy, type ComponentType } from 'react';

/** React.lazy for modules with named exports: each screen is its own chunk. */
export function lazyNamed<K extends string, M extends Record<K, ComponentType>>(load: () => Promise<M>, name: K) {
  return lazy(async () => {
    const module = await load();
    return { default: module[name] };
  });
}
