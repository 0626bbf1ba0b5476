/**
 * How many attempts each endpoint may start in one pass (docs/webhooks.md#how-deliveries-are-made): its
 * own room (WEBHOOK_ENDPOINT_CONCURRENCY less its attempts in flight on this node), out of the node's
 * room (WEBHOOK_CONCURRENCY less all its attempts in flight), handed out in endpoint order from `start`
 * round the list, so the endpoint served first changes from pass to pass.
 */
export function shareRoom(endpointRooms: readonly number[], nodeRoom: number, start: number): { rooms: number[]; unserved: boolean } {
  const rooms = endpointRooms.map(() => 0);
  let left = Math.max(0, nodeRoom);
  let unserved = false;
  for (let k = 0; k < endpointRooms.length; k++) {
    const i = (start + k) % endpointRooms.length;
    const want = Math.max(0, endpointRooms[i]);
    if (want > left) unserved = true;
    rooms[i] = Math.min(want, left);
    left -= rooms[i];
  }
  return { rooms, unserved };
}
