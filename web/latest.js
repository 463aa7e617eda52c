// Latest wins: only the newest settings are worked on. Their numbers come first, then each
// chart, piece by piece; between pieces a newer setting takes over, and replies for a
// setting the user has already left are dropped, so the page never shows stale numbers.
// If the worker was lost before it answered (an error marked `retryable`), the newest
// settings' request goes again, to the new worker, from the first piece of its figure.
// The first chart's request goes out with the numbers', not once their reply is heard, and
// the next request goes out before a reply is drawn, so the worker computes while the
// main thread draws. A request asks for pieces until its chart's sketch or whole figure is
// done (RUN_ON ms at most), not for one slice: the worker hands back early once a newer
// request comes in, and a newer setting's numbers go out at once, while the request for
// older settings is still under way (`early`). Each round trip cost the worker a wait,
// longest when the main thread was drawing a chart and could not ask for the next piece.
// While a second worker helps with a chart's points (help.js), they reach this one only
// with a request: then a request asks for one slice, or DRAWING ms while a chart is drawn;
// but a sketch's, whose points the other worker leaves to this one (sim/show/page.py: help),
// runs on as ever.
// A chart with a sketch (fewer points, each exact: sim/show/curves.py) is asked for its
// sketch first: every such chart's sketch, then every chart whole, so that each chart moves
// soon after a change and then fills in; in the numbers' lane a sketch's request goes out
// with the next step's, which the worker goes on to at once (worker.js: `follows`), and the
// last whole chart's brings the other main chart whole (`then`: the same runs), drawn in the
// same task. A figure asked for whole may reply with a sketch
// too, at the end of each of its stages (figures 7 and 9, a panel or a mix at a time): it
// is drawn as a sketch, and the same figure's rest is asked for next.

/** @template T */
export function deferred() {
  /** @type {(v: T) => void} */ let resolve = () => {};
  /** @type {(e: Error) => void} */ let reject = () => {};
  const promise = /** @type {Promise<T>} */ (new Promise((res, rej) => { resolve = res; reject = rej; }));
  promise.catch(() => {}); // a job nobody waits for may fail quietly; its errors are shown
  return { promise, resolve, reject };
}

/** The work for one set of settings. */
export class Job {
  /**
   * @param {Record<string, number>} settings @param {string} key @param {string[]} figures
   * @param {boolean} [numbers]  whether to ask for the numbers first
   * @param {string[]} [sketched]  the figures to ask for a sketch of first
   */
  constructor(settings, key, figures, numbers = true, sketched = []) {
    this.settings = settings;
    this.key = key;
    /** What to ask for, in turn: sketches first, then each figure whole. */
    this.steps = [...figures.filter((name) => sketched.includes(name)).map((name) => ({ name, sketch: true })),
      ...figures.map((name) => ({ name, sketch: false }))];
    this.index = numbers ? -1 : 0; // -1: the numbers; then an index into steps
    /** @type {Map<string, number>} */ this.parts = new Map(); // the next piece of each figure
    /** @type {Set<string>} */ this.whole = new Set(); // the figures drawn whole
    /** Points of a chart the second worker simulated (help.js), for the next figure request:
     * each reply's, as JSON text. @type {string[]} */
    this.told = [];
    this.left = false; // newer settings took over
    this.done = false;
    this.numbers = deferred(); // resolves with the compare result once it is on screen
    this.charts = deferred(); // once every figure is drawn
    if (this.index >= this.steps.length) this.finish();
  }

  finish() {
    this.done = true;
    this.charts.resolve(undefined);
  }

  /** On to the next step that is still to do. */
  advance() {
    this.index = this.after(this.index);
  }

  /** The step after `index` that is still to do (a figure drawn whole needs no step more),
   * or steps.length if none is. @param {number} index */
  after(index) {
    let next = index + 1;
    while (next < this.steps.length && this.whole.has(this.steps[next].name)) next += 1;
    return next;
  }

  /** The next request to send for this job (or the one at step `index`). */
  request(index = this.index) {
    if (index < 0) return { type: "compare" };
    const { name, sketch } = this.steps[index];
    return { type: "figure", name, part: this.parts.get(name) ?? 0, ...(sketch ? { sketch } : {}) };
  }
}

const DRAWING = 30; // ms: about what a chart's draw takes (bench/chart_speed.py prints it)
// ms: a bound only (a figure's sketch or whole ends a request first): the explorer's main
// charts after their sketch take ~0.7 s in the page here
const RUN_ON = 2000;

export class Latest {
  /**
   * @param {(type: string, body: Object) => Promise<any>} call  asks the worker
   * @param {{numbers: (job: Job, reply: any) => void, figure: (job: Job, name: string, reply: any) => void,
   *          sketch: (job: Job, name: string, reply: any) => void,
   *          failed: (job: Job, error: Error) => void}} show  puts replies on screen
   * @param {{helped?: () => boolean, together?: boolean}} [options]  `helped`: whether another
   *   worker helps now (help.js): then a request asks for a slice at a time, so that its
   *   points come in with the next. `together`: a figure's whole brings the figures after it
   *   that are whole at once (the main charts: the same runs), drawn in the same task
   */
  constructor(call, show, { helped = () => false, together = false } = {}) {
    this.call = call;
    this.show = show;
    this.helped = helped;
    this.together = together;
    /** @type {Job|null} */ this.job = null;
    this.running = false;
    this.started = false;
    /** The request under way, whose reply `run` awaits. @type {ReturnType<Latest["send"]>} */
    this.pending = null;
    /** The newest job's first request, sent while an older one's was under way. @type {ReturnType<Latest["send"]>} */
    this.early = null;
  }

  /** Make `job` the one to work on; older work is abandoned. @param {Job} job */
  want(job) {
    if (this.job) this.job.left = true;
    if (this.job && !this.job.done) {
      const error = new Error("superseded by newer settings");
      this.job.numbers.reject(error);
      this.job.charts.reject(error);
    }
    this.job = job;
    // Its numbers go now, not once the request under way is answered: the worker hands
    // that one back as soon as it hears this. One such request at a time: a later change
    // waits for it, and then asks for the newest settings.
    if (this.running && this.pending && this.pending.job !== job && !this.early) {
      this.early = this.send();
      this.early?.reply.catch(() => {}); // heard in run(), or dropped with the worker
    }
    this.run();
    return job;
  }

  /** Start sending requests (once the worker is ready). */
  start() {
    this.started = true;
    this.run();
  }

  /**
   * Send the newest job's next request, if it has one. With the numbers, the first figure's
   * request goes too (`ahead`): the worker answers the numbers in a few ms, and then waited
   * for the main thread, busy with the key and the numbers' reply, to ask for the next piece
   * (8 ms of the 40 to the first sketch, measured here). If a newer setting takes over
   * meanwhile, `ahead` costs the worker a slice of work (~10 ms) for settings already left:
   * it hears the newer request between two slices.
   * A sketch's request, in the numbers' lane (`together`) while no other worker helps, is
   * followed by the next step's (`ahead` again, sent `follows`: worker.js): the worker goes
   * on to it at once, where it waited (about 5 ms a step here) for the main thread to draw
   * the sketch and then ask.
   * @param {boolean} [drawing]  a chart is drawn meanwhile
   * @returns {null | {job: Job, request: any, reply: Promise<any>, ahead?: any}}
   */
  send(drawing = false) {
    const job = this.job;
    if (!job || job.done) return null;
    const ask = (/** @type {any} */ request, /** @type {Object} */ budget = {}) =>
      ({ job, request, reply: this.call(request.type, { ...request, ...budget, settings: job.settings }) });
    const helped = this.helped();
    const request = job.request();
    if (request.type !== "figure") {
      const sent = ask(request);
      if (job.steps.length === 0) return sent;
      const first = job.request(0);
      const ahead = ask(first, { budget: helped && !first.sketch ? DRAWING : RUN_ON });
      ahead.reply.catch(() => {}); // dropped if the numbers fail or are superseded
      return { ...sent, ahead };
    }
    const told = job.told.length ? { told: job.told.splice(0) } : {}; // lost with the worker, if it is: then simulated
    const budget = !helped || request.sketch ? RUN_ON : drawing ? DRAWING : 0;
    const sent = ask(request, { ...told, ...(budget ? { budget } : {}), ...this.then(job, job.index) });
    const next = this.together && !helped && request.sketch ? job.after(job.index) : job.steps.length;
    if (next >= job.steps.length) return sent;
    const ahead = ask(job.request(next), { follows: true, budget: RUN_ON, ...this.then(job, next) });
    ahead.reply.catch(() => {}); // dropped if this request fails or its settings are left
    return { ...sent, ahead };
  }

  /**
   * `then` for the request of step `index`, a figure whole, in a lane that asks for figures
   * together: the figures of the steps after it, whole, not drawn whole yet.
   * @param {Job} job @param {number} index @returns {{then?: string[]}}
   */
  then(job, index) {
    if (!this.together || job.steps[index].sketch) return {};
    const then = job.steps.slice(index + 1).filter((step) => !step.sketch && !job.whole.has(step.name))
      .map((step) => step.name);
    return then.length ? { then } : {};
  }

  async run() {
    if (this.running || !this.started) return;
    this.running = true;
    try {
      for (let sent = this.send(); sent; ) {
        this.pending = sent;
        const { job, request } = sent;
        /** @type {null | (() => void)} */ let show = null;
        let drawing = false; // the reply shown is a chart's
        let ahead = null; // the request sent with this one (the first figure's with the numbers): next
        try {
          const reply = await sent.reply;
          if (job === this.job) { // else the user has moved on: drop it
            ahead = sent.ahead ?? null;
            if (request.type === "compare") {
              job.index = 0;
              show = () => {
                this.show.numbers(job, reply);
                job.numbers.resolve(reply.result);
              };
            } else if ("figure" in reply) {
              const also = /** @type {any[]} */ (reply.also ?? []); // the figures after it, whole at once
              for (const name of [request.name, ...also.map((more) => more.name)]) job.whole.add(name);
              job.advance();
              drawing = true;
              show = () => {
                this.show.figure(job, request.name, reply);
                for (const more of also) this.show.figure(job, more.name, more);
              };
            } else if ("sketch" in reply) {
              job.parts.set(request.name, reply.next);
              if (request.sketch) job.advance(); // else a stage of a figure asked for whole: its rest next
              drawing = true;
              show = () => this.show.sketch(job, request.name, reply);
            } else {
              job.parts.set(request.name, reply.next);
            }
            if (job.index >= job.steps.length) {
              job.done = true;
              const drawn = show;
              show = () => {
                drawn?.();
                job.finish();
              };
            }
          }
        } catch (error) {
          if (/** @type {any} */ (error)?.retryable) {
            job.parts.clear(); // a new worker has none of the old one's pieces
          } else if (job === this.job) {
            job.done = true;
            job.numbers.reject(/** @type {Error} */ (error));
            job.charts.reject(/** @type {Error} */ (error));
            show = () => this.show.failed(job, /** @type {Error} */ (error));
          }
        }
        // under way while this reply is drawn
        sent = this.early ?? (ahead && !job.done ? ahead : this.send(drawing));
        this.early = null;
        show?.();
      }
    } finally {
      this.running = false;
      this.pending = null;
    }
  }
}
