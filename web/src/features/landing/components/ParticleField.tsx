import { ActionIcon, Box, Tooltip } from '@mantine/core';
import { useReducedMotion } from '@mantine/hooks';
import { IconPlayerPause, IconPlayerPlay } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';

interface Particle {
  x: number;
  y: number;
  vx: number;
  vy: number;
  r: number;
}

const LINK_DISTANCE = 110;

function seed(count: number, width: number, height: number): Particle[] {
  return Array.from({ length: count }, () => ({
    x: Math.random() * width,
    y: Math.random() * height,
    vx: (Math.random() - 0.5) * 0.6,
    vy: (Math.random() - 0.5) * 0.6,
    r: 1 + Math.random() * 1.8,
  }));
}

function step(particles: Particle[], width: number, height: number): void {
  for (const p of particles) {
    p.x += p.vx;
    p.y += p.vy;
    if (p.x < 0 || p.x > width) p.vx *= -1;
    if (p.y < 0 || p.y > height) p.vy *= -1;
  }
}

function draw(ctx: CanvasRenderingContext2D, particles: Particle[], width: number, height: number): void {
  ctx.clearRect(0, 0, width, height);
  for (let i = 0; i < particles.length; i += 1) {
    const a = particles[i];
    if (!a) continue;
    for (let j = i + 1; j < particles.length; j += 1) {
      const b = particles[j];
      if (!b) continue;
      const distance = Math.hypot(a.x - b.x, a.y - b.y);
      if (distance < LINK_DISTANCE) {
        ctx.strokeStyle = `rgba(116, 192, 252, ${0.18 * (1 - distance / LINK_DISTANCE)})`;
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.moveTo(a.x, a.y);
        ctx.lineTo(b.x, b.y);
        ctx.stroke();
      }
    }
  }
  ctx.fillStyle = 'rgba(165, 216, 255, 0.75)';
  for (const p of particles) {
    ctx.beginPath();
    ctx.arc(p.x, p.y, p.r, 0, Math.PI * 2);
    ctx.fill();
  }
}

export interface ParticleFieldProps {
  /** How many particles drift across the hero (SPEC §9: 150 by default). */
  count?: number;
}

/** Decorative drifting network behind the hero; absent for visitors who prefer reduced motion. */
export function ParticleField({ count = 150 }: ParticleFieldProps) {
  const reducedMotion = useReducedMotion(false, { getInitialValueInEffect: false });
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(paused);

  useEffect(() => {
    pausedRef.current = paused;
  }, [paused]);

  useEffect(() => {
    if (reducedMotion) return undefined;
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return undefined;

    let width = 0;
    let height = 0;
    let particles: Particle[] = [];
    let frame = 0;

    const resize = () => {
      const ratio = window.devicePixelRatio || 1;
      width = canvas.clientWidth;
      height = canvas.clientHeight;
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      if (particles.length === 0) particles = seed(count, width, height);
      draw(ctx, particles, width, height);
    };

    const tick = () => {
      if (!pausedRef.current) {
        step(particles, width, height);
        draw(ctx, particles, width, height);
      }
      frame = window.requestAnimationFrame(tick);
    };

    resize();
    const observer = new ResizeObserver(resize);
    observer.observe(canvas);
    frame = window.requestAnimationFrame(tick);
    return () => {
      window.cancelAnimationFrame(frame);
      observer.disconnect();
    };
  }, [count, reducedMotion]);

  if (reducedMotion) return null;

  const label = paused ? 'Resume animation' : 'Pause animation';
  return (
    <>
      <Box
        component="canvas"
        ref={canvasRef}
        aria-hidden
        data-testid="particle-canvas"
        data-paused={paused}
        pos="absolute"
        inset={0}
        w="100%"
        h="100%"
        style={{ pointerEvents: 'none' }}
      />
      <Tooltip label={label}>
        <ActionIcon
          variant="default"
          radius="xl"
          size="lg"
          aria-label={label}
          onClick={() => setPaused((value) => !value)}
          pos="absolute"
          bottom={16}
          right={16}
          style={{ zIndex: 2 }}
        >
          {paused ? <IconPlayerPlay size={18} /> : <IconPlayerPause size={18} />}
        </ActionIcon>
      </Tooltip>
    </>
  );
}
