"""Memory that pushes back on the split: the readers, the link and the writers, coupled
(docs/model.md: "Memory that pushes back").

With `memory=kv` a reader holds each prompt's cache from the start of its read until it has
landed at a writer, and a writer holds room for a job's whole final context from the moment it
admits it until its last word. So a cache asks a writer for room as it is ready to cross, and
crosses only once admitted; a reader with no room left stops reading; and room comes back only
as replies end. Nothing here can be worked out pool by pool, as the split with `memory=slots`
is (link.py, then the writers' loops): this module is the one place that walks the three
together, moment by moment, in the order docs/model.md gives for one moment:

1. passes that end then end (words made, last words free their room), reads end and their
   caches ask (and layer-wise caches whose first layer is read then);
2. caches that land then land: the reader frees its tokens, the job reaches its writer;
3. writers admit, in the order of asking (a job may be admitted the moment it asks, or the
   moment room comes back);
4. admitted caches begin crossing (a queued link in the order they go);
5. idle readers with room start the queue's first prompts;
6. requests that arrive then arrive, one at a time: too long to ever fit, dropped; read
   locally (Dynamo's rule, counting the prompts still queued), or queued for a reader;
7. instances begin their next pass.

Admission, crossing and the readers compare times exactly; each writer's own loop keeps the
nanosecond rule (instance.py).
"""

from heapq import heappop, heappush

from .costs import EPS
from .instance import Whole

PASS_END, READ_END, ASK, LAND, ARRIVE = range(5)  # a moment's events, in its order


class Split:
    """The split with KV memory: readers, a link and writers, walked moment by moment."""

    def __init__(self, work, s, reader, writer, readers, writers, record=False):
        self.work, self.s = work, s
        self.reader_chip, self.writer_chip = reader, writer
        self.read_room, self.write_room = reader.capacity, writer.capacity  # KV tokens each
        self.layers = reader.model.layers
        self.cross = reader.model.cache / (s.link * 1e9)  # seconds a token's cache takes to cross
        n = len(work.arrivals)
        self.events = []  # heap: (time, kind, request or writer, sequence)
        self.sequence = 0
        self.queue = []  # the readers' queue: requests waiting for a reader, in arrival order
        self.head = 0
        self.reading = [None] * readers  # the request each reader reads, or None
        self.held = [0] * readers  # tokens each reader holds (read, or reading, not yet landed)
        self.writers = [Whole(writer, s.slots, record=record) for _ in range(writers)]
        for each in self.writers:
            each.requests = []  # the request of each of its jobs
        self.asked = [[] for _ in range(writers)]  # each writer's jobs waiting for room, in order
        self.reserved = [0] * writers  # tokens each writer holds for the jobs it admitted
        self.assigned = [0] * writers  # jobs given to each (least-loaded counts them)
        self.last_words = [[] for _ in range(writers)]  # each writer's last words, in time order
        self.incoming = [[] for _ in range(writers)]  # heap: (reach, request) admitted, not yet there
        self.turn = 0  # alternate routing: the writer whose turn it is
        self.link_free = 0.0
        self.writer_of = [None] * n  # the writer each request asked
        self.reader_of = [None] * n
        self.start, self.end = [None] * n, [None] * n  # each read's start and end
        self.departs, self.land = [None] * n, [None] * n  # each crossing's start and landing
        self.going = []  # (request, writer) admitted this moment, to begin crossing
        self.dropped = 0
        self.reader_peak = self.writer_peak = 0
        self.waiting_since = None  # since when a prompt waits while a reader idles
        self.pushed_back = 0.0  # how long, in all
        self.record = record
        self.kv = {("reader", r): [(0.0, 0)] for r in range(readers)} if record else None
        if record:
            self.kv.update({("writer", w): [(0.0, 0)] for w in range(writers)})

    # ---- the moment's events ----

    def at(self, t, kind, what):
        self.sequence += 1
        heappush(self.events, (t, kind, what, self.sequence))

    def run(self):
        """Walk every moment; returns the writers' served jobs and what the run held."""
        for i, a in enumerate(self.work.arrivals):
            self.at(a, ARRIVE, i)
        while self.events:
            t = self.events[0][0]
            moment = []
            while self.events and self.events[0][0] == t:
                moment.append(heappop(self.events))
            self.moment(t, sorted(moment, key=lambda e: (e[1], e[2])))
        return self

    def moment(self, t, events):
        for _, kind, w, _ in events:  # 1. passes end: last words free their room
            if kind == PASS_END:
                writer = self.writers[w]
                for j in writer.finish():
                    self.freed(w, writer.requests[j], t)
        asking = []
        for _, kind, i, _ in events:  # 1. reads end; caches ask, by request index
            if kind == READ_END:
                self.reading[self.reader_of[i]] = None
                if not self.s.layerwise:
                    asking.append(i)
            elif kind == ASK:
                asking.append(i)
        for i in sorted(asking):
            self.ask(i, t, local=False)
        for _, kind, i, _ in events:  # 2. caches land
            if kind == LAND:
                self.landed(i, t)
        # 3. writers admitted each job as it fitted, above; 4. the admitted caches cross
        for i, w in sorted(self.going):
            self.go(i, w, t)
        self.going.clear()
        self.start_readers(t)  # 5.
        for _, kind, i, _ in events:  # 6. arrivals, one at a time
            if kind == ARRIVE:
                self.arrive(i, t)
        self.note_waiting(t)
        for w in range(len(self.writers)):  # 7. instances begin their next pass
            self.begin(w, t)
        # what each holds once the moment's changes are all made (within a moment they are
        # summed: a room freed and taken again at one moment is no peak)
        held, reserved = max(self.held) / self.read_room, max(self.reserved) / self.write_room
        if held > self.reader_peak:
            self.reader_peak = held
        if reserved > self.writer_peak:
            self.writer_peak = reserved

    # ---- readers ----

    def arrive(self, i, t):
        s, p, r = self.s, self.work.prompts[i], self.work.replies[i]
        if p > self.read_room or p + r > self.write_room:  # it could never fit: dropped
            self.dropped += 1
            return
        waiting = len(self.queue) - self.head  # Dynamo's count: prompts still queued
        if p < s.local_below or (s.local_queue and waiting >= s.local_queue):
            self.ask(i, t, local=True)
        else:
            self.queue.append(i)
            self.start_readers(t)

    def start_readers(self, t):
        """The queue's first prompts start, each on the lowest-index idle reader with room."""
        while self.head < len(self.queue):
            i = self.queue[self.head]
            p = self.work.prompts[i]
            k = next((k for k, busy in enumerate(self.reading)
                      if busy is None and self.held[k] + p <= self.read_room), None)
            if k is None:
                return
            self.head += 1
            self.reading[k], self.reader_of[i] = i, k
            self.hold(k, p, t)
            read = self.reader_chip.read_time(p)
            self.start[i], self.end[i] = t, t + read
            self.at(t + read, READ_END, i)
            if self.s.layerwise:
                self.at(t + read / self.layers, ASK, i)

    def hold(self, k, tokens, t):
        self.held[k] += tokens
        if self.record:
            self.kv[("reader", k)].append((t, self.held[k]))

    def note_waiting(self, t):
        """Backpressure: a prompt waits in the readers' queue while a reader is idle (only
        memory keeps an idle reader from it)."""
        pushed = self.head < len(self.queue) and None in self.reading
        if pushed and self.waiting_since is None:
            self.waiting_since = t
        elif not pushed and self.waiting_since is not None:
            self.pushed_back += t - self.waiting_since
            self.waiting_since = None

    # ---- writers ----

    def ask(self, i, t, local):
        """Request i asks a writer for room: chosen now, by the routing."""
        n = len(self.writers)
        if self.s.routing == "alternate":
            w, self.turn = self.turn, (self.turn + 1) % n
        else:
            held = [self.assigned[w] - count_upto(self.last_words[w], t) for w in range(n)]
            w = held.index(min(held))
        self.assigned[w] += 1
        self.writer_of[i] = w
        self.asked[w].append((i, local))
        self.admit(w, t)

    def admit(self, w, t):
        """Writer w admits its waiting jobs, in order, while each fits."""
        asked = self.asked[w]
        while asked:
            i, local = asked[0]
            need = self.work.prompts[i] + self.work.replies[i]
            if self.reserved[w] + need > self.write_room:
                return
            asked.pop(0)
            self.reserve(w, need, t)
            if local:  # it reaches its writer now, to be read by it
                heappush(self.incoming[w], (t, i, True))
            else:
                self.going.append((i, w))

    def reserve(self, w, tokens, t):
        self.reserved[w] += tokens
        if self.record:
            self.kv[("writer", w)].append((t, self.reserved[w]))

    def go(self, i, w, t):
        """An admitted cache begins crossing (the link queued: once it is free)."""
        p, s = self.work.prompts[i], self.s
        crossing = p * self.cross
        go = t
        if s.link_sharing == "queued":
            go = t if t > self.link_free else self.link_free
        land = go + crossing
        if s.layerwise:
            last = self.end[i] + crossing / self.layers  # the last layer, once read
            land = land if land > last else last
        if s.link_sharing == "queued":
            self.link_free = land
        self.departs[i], self.land[i] = go, land
        heappush(self.incoming[w], (land, i, False))
        self.at(land, LAND, i)

    def landed(self, i, t):
        k = self.reader_of[i]
        self.held[k] -= self.work.prompts[i]
        if self.record:
            self.kv[("reader", k)].append((t, self.held[k]))
        if self.work.replies[i] == 1:  # its only word is made as it lands: its room comes back
            self.freed(self.writer_of[i], i, t)

    def freed(self, w, i, t):
        self.reserved[w] -= self.work.prompts[i] + self.work.replies[i]
        self.last_words[w].append(t)
        if self.record:
            self.kv[("writer", w)].append((t, self.reserved[w]))
        self.admit(w, t)

    def begin(self, w, t):
        """Writer w's next pass, if it is idle and has work: the jobs that reach it within a
        nanosecond are there for it (its loop's rule)."""
        writer = self.writers[w]
        if writer.pending is not None:
            return
        incoming = self.incoming[w]
        while incoming and incoming[0][0] <= t + EPS:
            reach, i, local = heappop(incoming)
            writer.give(reach, self.work.replies[i], self.work.prompts[i], read=local)
            writer.requests.append(i)
        if writer.clock < t:
            writer.clock = t
        if writer.ending or writer.joining or writer.there() is not None:
            writer.begin()
            self.at(writer.pending[0], PASS_END, w)


def count_upto(times, t):
    """How many of the times (in order) are at t or before."""
    lo, hi = 0, len(times)
    while lo < hi:
        mid = (lo + hi) // 2
        if times[mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo
