// The main thread's side of the worker boundary: messages {id, type, ...} answered by
// {id, result} or {id, error}.

export class PythonWorker {
  /** @param {URL} url  the module worker's script */
  constructor(url) {
    this.worker = new Worker(url, { type: "module" });
    this.nextId = 1;
    /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
    this.waiting = new Map();
    this.worker.onmessage = (event) => {
      const { id, result, error } = event.data;
      const call = this.waiting.get(id);
      if (!call) return;
      this.waiting.delete(id);
      if (error !== undefined) call.reject(new Error(error));
      else call.resolve(result);
    };
    this.worker.onerror = (event) => {
      const error = new Error(`the Python worker failed: ${event.message || "it could not start"}`);
      for (const call of this.waiting.values()) call.reject(error);
      this.waiting.clear();
    };
  }

  /**
   * Ask the worker something.
   * @param {string} type @param {Object} [body]
   * @returns {Promise<any>}
   */
  call(type, body = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, ...body });
    });
  }
}
