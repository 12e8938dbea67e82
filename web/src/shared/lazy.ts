/** React.lazy for modules with named exports: each screen (and each Settings part) is its own chunk. */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type PropsOf<C> = C extends ComponentType<infer P> ? P : never;

export function lazyNamed<K extends string, M extends Record<K, ComponentType<never>>>(
  load: () => Promise<M>,
  name: K,
): LazyExoticComponent<ComponentType<PropsOf<M[K]>>> {
  return lazy(async () => {
    const module = await load();
    // The constraint cannot name the props before `name` picks the export; PropsOf reads them back from it.
    return { default: module[name] as ComponentType<PropsOf<M[K]>> };
  });
}
