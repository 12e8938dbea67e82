import { Table } from '@mantine/core';

/** A table's header row from its column names (an empty name heads a column of actions). */
export function TableHead({ columns }: { columns: readonly string[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((column) => (
          <Table.Th key={column}>{column || null}</Table.Th>
        ))}
      </Table.Tr>
    </Table.Thead>
  );
}
