/** The demo operator: prefilled on the login form only when demo mode is on. */
export const DEMO_CREDENTIALS = { email: 'operator@demo.farm', password: 'demo-operator' } as const;
