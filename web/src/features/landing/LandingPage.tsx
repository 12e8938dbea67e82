import { Anchor, Badge, Box, Button, Card, Container, Group, List, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconActivity, IconArrowRight, IconChartBar, IconCheck, IconDeviceMobile, IconListCheck, IconRocket, IconUsers, type Icon } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { lazyNamed } from '../../shared/lazy';
import { Logo } from '../../shared/ui/Logo';
import { AfterFirstPaint } from './components/AfterFirstPaint';
import { BRAND_TILE_HEIGHT } from './components/brands';

// The hero's moving backdrop and the brand logos below the fold arrive just after the first paint (AfterFirstPaint):
// the headline and the call to action do not wait for their scripts (the carousel, the pause button's tooltip).
const ParticleField = lazyNamed(() => import('./components/ParticleField'), 'ParticleField');
const BrandCarousel = lazyNamed(() => import('./components/BrandCarousel'), 'BrandCarousel');

interface Feature {
  icon: Icon;
  title: string;
  text: string;
}

const features: readonly Feature[] = [
  { icon: IconDeviceMobile, title: 'Device Fleet Management', text: 'See the status, battery and last activity of every phone in your farm at a glance.' },
  { icon: IconUsers, title: 'VA Team Coordination', text: 'Invite virtual assistants, hand them devices and follow who is working on what.' },
  { icon: IconListCheck, title: 'Smart Task Distribution', text: 'Queue posting, engagement, warm-up and monitoring tasks with priorities and deadlines.' },
  { icon: IconActivity, title: 'Live Session Monitoring', text: 'Watch running sessions, their screenshots and the activity log as it happens.' },
  { icon: IconRocket, title: 'Campaign Automation', text: 'Link accounts to campaigns, add routines and schedule posts across platforms.' },
  { icon: IconChartBar, title: 'Performance Analytics', text: 'Measure success rates, session time and the output of every device and assistant.' },
];

const steps = [
  { title: 'Configure Devices', text: 'Register your phones and check they report status and battery.' },
  { title: 'Assign Tasks', text: 'Create tasks and give them to devices and virtual assistants.' },
  { title: 'Monitor Sessions', text: 'Follow live sessions and step in with pause, resume or stop.' },
  { title: 'Analyze Performance', text: 'Compare devices and assistants and tune what works.' },
] as const;

const interfaces = [
  {
    title: 'Grid Admin App',
    audience: 'For operators',
    points: ['Fleet overview and device control', 'Task creation and distribution', 'Campaigns, accounts and content', 'Team and workspace management'],
  },
  {
    title: 'VA Web App',
    audience: 'For virtual assistants',
    points: ['Tasks assigned to you, ready to start', 'Your device and its live session', 'Drafting and publishing posts', 'Updating account statistics'],
  },
] as const;

const impact = [
  { value: '3.5x', label: 'Average Reach Increase' },
  { value: '89%', label: 'Higher Engagement' },
  { value: '60%', label: 'Time Saved' },
  { value: '250%', label: 'Average ROI' },
] as const;

function SectionTitle({ id, eyebrow, title, text }: { id: string; eyebrow: string; title: string; text: string }) {
  return (
    <Stack gap="xs" align="center" ta="center" mb="xl">
      <Badge variant="light" size="lg">
        {eyebrow}
      </Badge>
      <Title order={2} id={id} fz={{ base: 28, sm: 36 }}>
        {title}
      </Title>
      <Text c="dimmed" maw={640}>
        {text}
      </Text>
    </Stack>
  );
}

interface SectionProps {
  /** The anchor the header's links jump to. */
  id?: string;
  titleId: string;
  eyebrow: string;
  title: string;
  text: string;
  /** On the darker band that sets every other section apart. */
  dark?: boolean;
  children: ReactNode;
}

function Section({ id, titleId, eyebrow, title, text, dark = false, children }: SectionProps) {
  const content = (
    <>
      <SectionTitle id={titleId} eyebrow={eyebrow} title={title} text={text} />
      {children}
    </>
  );
  if (dark) {
    return (
      <Box bg="dark.8" component="section" id={id} aria-labelledby={titleId}>
        <Container size="lg" py={80}>
          {content}
        </Container>
      </Box>
    );
  }
  return (
    <Container size="lg" py={80} component="section" id={id} aria-labelledby={titleId}>
      {content}
    </Container>
  );
}

/** The headings of the page's sections; `id` is where the header's links jump. */
const sections = {
  features: {
    id: 'features',
    titleId: 'features-title',
    eyebrow: 'Features',
    title: 'Everything your phone farm needs',
    text: 'From the battery of a single phone to the reach of a whole campaign.',
  },
  howItWorks: {
    id: 'how-it-works',
    titleId: 'how-title',
    eyebrow: 'Process',
    title: 'How It Works',
    text: 'Four steps from a drawer of phones to a measured operation.',
  },
  interfaces: {
    id: 'interfaces',
    titleId: 'interfaces-title',
    eyebrow: 'Two interfaces',
    title: 'One for operators, one for assistants',
    text: 'Each role sees what it needs to do its job, from the same live data.',
  },
  impact: {
    titleId: 'impact-title',
    eyebrow: 'Impact',
    title: 'Results our customers report',
    text: 'Averages across teams running their farms on the platform.',
  },
} as const;

const sectionLinks = [
  { href: '#features', label: 'Features' },
  { href: '#how-it-works', label: 'How It Works' },
  { href: '#interfaces', label: 'Interfaces' },
] as const;

export function LandingPage() {
  return (
    <Box style={{ overflowX: 'hidden' }}>
      <Box component="header" py="md" style={{ borderBottom: '1px solid var(--mantine-color-dark-5)' }}>
        <Container size="lg">
          <Group justify="space-between" wrap="nowrap">
            <Logo />
            <Group gap="lg" visibleFrom="sm" component="nav" aria-label="Sections">
              {sectionLinks.map((link) => (
                <Anchor key={link.href} href={link.href} c="dimmed">
                  {link.label}
                </Anchor>
              ))}
            </Group>
          </Group>
        </Container>
      </Box>

      <main>
        <Box component="section" pos="relative" aria-labelledby="hero-title" style={{ overflow: 'hidden' }}>
          <AfterFirstPaint>
            <ParticleField count={100} />
          </AfterFirstPaint>
          <Container size="lg" py={{ base: 80, sm: 128 }} pos="relative" style={{ zIndex: 1 }}>
            <Stack align="center" ta="center" gap="lg">
              <Badge variant="dot" size="lg" h="auto" py={4} maw="100%" styles={{ label: { whiteSpace: 'normal', textAlign: 'center' } }}>
                Real phones. Real accounts. One console.
              </Badge>
              <Title id="hero-title" order={1} fz={{ base: 36, sm: 56 }} lh={1.1} maw={860}>
                Social media automation on a fleet of real phones
              </Title>
              <Text c="dimmed" fz={{ base: 'md', sm: 'lg' }} maw={640}>
                Run devices, virtual assistants, tasks and campaigns from one place, and watch every session live.
              </Text>
              <Group gap="md" justify="center">
                <Button component={Link} to="/signup" size="lg" rightSection={<IconArrowRight size={18} />}>
                  Get Started
                </Button>
                <Button component={Link} to="/login" size="lg" variant="default">
                  Login
                </Button>
              </Group>
            </Stack>
          </Container>
        </Box>

        <Section {...sections.features}>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="lg">
            {features.map(({ icon: FeatureIcon, title, text }) => (
              <Card key={title} withBorder padding="lg" radius="md">
                <ThemeIcon size={44} radius="md" variant="light" mb="md" aria-hidden>
                  <FeatureIcon size={24} />
                </ThemeIcon>
                <Title order={3} fz="lg" mb={6}>
                  {title}
                </Title>
                <Text c="dimmed" size="sm">
                  {text}
                </Text>
              </Card>
            ))}
          </SimpleGrid>
        </Section>

        <Section dark {...sections.howItWorks}>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="lg" component="ol" style={{ listStyle: 'none', padding: 0 }}>
            {steps.map((step, index) => (
              <Box component="li" key={step.title}>
                <Stack gap="xs" align="center" ta="center">
                  <ThemeIcon size={48} radius="xl" aria-hidden>
                    <Text fw={800}>{index + 1}</Text>
                  </ThemeIcon>
                  <Title order={3} fz="lg">
                    {step.title}
                  </Title>
                  <Text c="dimmed" size="sm">
                    {step.text}
                  </Text>
                </Stack>
              </Box>
            ))}
          </SimpleGrid>
        </Section>

        <Section {...sections.interfaces}>
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
            {interfaces.map((item) => (
              <Card key={item.title} withBorder padding="xl" radius="md">
                <Text size="sm" c="blue" fw={600}>
                  {item.audience}
                </Text>
                <Title order={3} fz="xl" mt={4} mb="md">
                  {item.title}
                </Title>
                <List
                  spacing="xs"
                  icon={
                    <ThemeIcon size={20} radius="xl" color="teal" aria-hidden>
                      <IconCheck size={14} />
                    </ThemeIcon>
                  }
                >
                  {item.points.map((point) => (
                    <List.Item key={point}>{point}</List.Item>
                  ))}
                </List>
              </Card>
            ))}
          </SimpleGrid>
        </Section>

        <Container size="lg" pb={80} component="section" aria-labelledby="brands-title">
          <Title order={2} id="brands-title" ta="center" fz="lg" c="dimmed" fw={600} mb="lg">
            Trusted by growth teams at
          </Title>
          <AfterFirstPaint placeholder={<Box h={BRAND_TILE_HEIGHT} />}>
            <BrandCarousel />
          </AfterFirstPaint>
        </Container>

        <Section dark {...sections.impact}>
          <SimpleGrid cols={{ base: 2, md: 4 }} spacing="lg">
            {impact.map((item) => (
              <Stack key={item.label} gap={4} align="center" ta="center">
                <Text fz={{ base: 36, sm: 48 }} fw={800} c="blue.4" lh={1}>
                  {item.value}
                </Text>
                <Text c="dimmed">{item.label}</Text>
              </Stack>
            ))}
          </SimpleGrid>
        </Section>

        <Container size="md" py={96} component="section" aria-labelledby="cta-title">
          <Stack align="center" ta="center" gap="md">
            <Title order={2} id="cta-title" fz={{ base: 28, sm: 40 }}>
              Ready to scale your operations?
            </Title>
            <Text c="dimmed" maw={560}>
              Create your workspace, connect your first phones and invite your team in minutes.
            </Text>
            <Button component={Link} to="/signup" size="lg" rightSection={<IconArrowRight size={18} />}>
              Start Now
            </Button>
          </Stack>
        </Container>
      </main>

      <Box component="footer" py="lg" style={{ borderTop: '1px solid var(--mantine-color-dark-5)' }}>
        <Container size="lg">
          <Group justify="space-between" gap="sm">
            <Logo />
            <Text size="sm" c="dimmed">
              © {new Date().getFullYear()} PhoneGrid
            </Text>
          </Group>
        </Container>
      </Box>
    </Box>
  );
}
