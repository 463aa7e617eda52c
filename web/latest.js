// Latest wins: only the newest settings are worked on. Their numbers come first, then each
// chart, piece by piece; between pieces a newer setting takes over, and replies for a
// setting the user has already left are dropped, so the page never shows stale numbers.
// If the worker was lost before it answered (an error marked `retryable`), the newest
// settings' request goes again, to the new worker, from the first piece of its figure.
// The next request goes out before a reply is drawn, so the worker computes while the
// main thread draws.

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
   */
  constructor(settings, key, figures, numbers = true) {
    this.settings = settings;
    this.key = key;
    this.figures = figures; // names, in the order to draw them
    this.index = numbers ? -1 : 0; // -1: the numbers; then an index into figures
    this.part = 0; // the next piece of the current figure
    this.done = false;
    this.numbers = deferred(); // resolves with the compare result once it is on screen
    this.charts = deferred(); // once every figure is drawn
    if (this.index >= figures.length) this.finish();
  }

  finish() {
    this.done = true;
    this.charts.resolve(undefined);
  }

  /** The next request to send for this job. */
  request() {
    if (this.index < 0) return { type: "compare" };
    return { type: "figure", name: this.figures[this.index], part: this.part };
  }
}

export class Latest {
  /**
   * @param {(type: string, body: Object) => Promise<any>} call  asks the worker
   * @param {{numbers: (job: Job, reply: any) => void, figure: (job: Job, name: string, reply: any) => void,
   *          failed: (job: Job, error: Error) => void}} show  puts replies on screen
   */
  constructor(call, show) {
    this.call = call;
    this.show = show;
    /** @type {Job|null} */ this.job = null;
    this.running = false;
    this.started = false;
  }

  /** Make `job` the one to work on; older work is abandoned. @param {Job} job */
  want(job) {
    if (this.job && !this.job.done) {
      const error = new Error("superseded by newer settings");
      this.job.numbers.reject(error);
      this.job.charts.reject(error);
    }
    this.job = job;
    this.run();
    return job;
  }

  /** Start sending requests (once the worker is ready). */
  start() {
    this.started = true;
    this.run();
  }

  /** Send the newest job's next request, if it has one. */
  send() {
    const job = this.job;
    if (!job || job.done) return null;
    const request = job.request();
    return { job, request, reply: this.call(request.type, { ...request, settings: job.settings }) };
  }

  async run() {
    if (this.running || !this.started) return;
    this.running = true;
    try {
      for (let sent = this.send(); sent; ) {
        const { job, request } = sent;
        /** @type {null | (() => void)} */ let show = null;
        try {
          const reply = await sent.reply;
          if (job === this.job) { // else the user has moved on: drop it
            if (request.type === "compare") {
              job.index = 0;
              show = () => {
                this.show.numbers(job, reply);
                job.numbers.resolve(reply.result);
              };
            } else if ("figure" in reply) {
              job.index += 1;
              job.part = 0;
              show = () => this.show.figure(job, request.name, reply);
            } else {
              job.part = reply.next;
            }
            if (job.index >= job.figures.length) {
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
            job.part = 0; // a new worker has none of the old one's pieces
          } else if (job === this.job) {
            job.done = true;
            job.numbers.reject(/** @type {Error} */ (error));
            job.charts.reject(/** @type {Error} */ (error));
            show = () => this.show.failed(job, /** @type {Error} */ (error));
          }
        }
        sent = this.send(); // under way while this reply is drawn
        show?.();
      }
    } finally {
      this.running = false;
    }
  }
}
