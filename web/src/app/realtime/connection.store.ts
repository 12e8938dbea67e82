/** The console socket's connection state, for the header's indicator and the disconnection banner. */
import { create } from 'zustand';
import type { ConnectionState } from '../../shared/realtime/connection';

interface ConnectionStore extends ConnectionState {
  report: (state: ConnectionState) => void;
}

export const useConnectionStore = create<ConnectionStore>()((set) => ({
  status: 'connecting',
  downSince: Date.now(),
  report: ({ status, downSince }) => set({ status, downSince }),
}));
