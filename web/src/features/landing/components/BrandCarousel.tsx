import '@mantine/carousel/styles.css';
import { Carousel } from '@mantine/carousel';
import { Group, Text } from '@mantine/core';
import Autoplay from 'embla-carousel-autoplay';
import { useRef } from 'react';
import { BRAND_TILE_HEIGHT, brands } from './brands';

/** SPEC §9: the logo carousel moves every 2000 ms and loops. */
export const CAROUSEL_DELAY = 2000;

export function BrandCarousel() {
  const autoplay = useRef(Autoplay({ delay: CAROUSEL_DELAY, stopOnInteraction: false, stopOnMouseEnter: true }));
  return (
    <Carousel
      aria-label="Customer brands"
      aria-roledescription="carousel"
      slideSize={{ base: '50%', xs: '33.333%', sm: '25%', md: '20%' }}
      slideGap="md"
      emblaOptions={{ loop: true, align: 'start' }}
      plugins={[autoplay.current]}
      controlSize={32}
      // The arrows sit beside the logos, never over the first or last one.
      px={44}
      previousControlProps={{ 'aria-label': 'Previous brands' }}
      nextControlProps={{ 'aria-label': 'Next brands' }}
    >
      {brands.map((brand, index) => (
        <Carousel.Slide key={brand.name} aria-roledescription="slide" aria-label={`${index + 1} of ${brands.length}`}>
          <Group
            gap={8}
            justify="center"
            wrap="nowrap"
            h={BRAND_TILE_HEIGHT}
            c="gray.5"
            role="img"
            aria-label={`${brand.name} logo`}
            style={{ border: '1px solid var(--mantine-color-dark-4)', borderRadius: 'var(--mantine-radius-md)' }}
          >
            <svg width="28" height="28" viewBox="0 0 28 28" aria-hidden focusable="false">
              {brand.mark}
            </svg>
            <Text fw={700} fz="lg" aria-hidden style={{ letterSpacing: '-0.01em' }}>
              {brand.name}
            </Text>
          </Group>
        </Carousel.Slide>
      ))}
    </Carousel>
  );
}
