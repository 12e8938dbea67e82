export { createTestDatabase, type TestDatabase } from '@farm/sql/testing';
