"""Screenshots against a baseline: compared pixel by pixel in the browser's canvas, with a
diff image for each that differs."""

import base64

from .browser import Unsteady, reason

# Two PNGs (data: URLs) compared pixel by pixel in a canvas. The diff image, made only for a
# failure, is the new screenshot faded to grey with every differing pixel red.
DIFF = """async ([shot, base, threshold, maxShare]) => {
  const load = (src) => new Promise((done, fail) => {
    const image = new Image();
    image.onload = () => done(image);
    image.onerror = () => fail(new Error("not a PNG image"));
    image.src = src;
  });
  const [a, b] = await Promise.all([load(shot), load(base)]);
  const width = Math.max(a.width, b.width), height = Math.max(a.height, b.height);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  const pixels = (image) => {
    context.clearRect(0, 0, width, height);
    context.drawImage(image, 0, 0); // beyond a smaller image: transparent, so it differs
    return context.getImageData(0, 0, width, height);
  };
  const pa = pixels(a).data, out = pixels(b), pb = out.data;
  let differing = 0;
  const bad = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < pa.length; i += 4, p++) {
    if (Math.abs(pa[i] - pb[i]) > threshold || Math.abs(pa[i + 1] - pb[i + 1]) > threshold ||
        Math.abs(pa[i + 2] - pb[i + 2]) > threshold || Math.abs(pa[i + 3] - pb[i + 3]) > threshold) {
      bad[p] = 1;
      differing++;
    }
  }
  const share = differing / (width * height);
  const sameSize = a.width === b.width && a.height === b.height;
  const result = { width: a.width, height: a.height, baseWidth: b.width, baseHeight: b.height,
                   differing, share, ok: sameSize && share <= maxShare, diff: null };
  if (!result.ok) {
    for (let i = 0, p = 0; i < pa.length; i += 4, p++) {
      const grey = 191 + (pa[i] * 0.3 + pa[i + 1] * 0.59 + pa[i + 2] * 0.11) / 4;
      [pb[i], pb[i + 1], pb[i + 2], pb[i + 3]] = bad[p] ? [255, 0, 0, 255] : [grey, grey, grey, 255];
    }
    context.putImageData(out, 0, 0);
    result.diff = canvas.toDataURL("image/png");
  }
  return result;
}"""


class Screenshots:
    """Each state's screenshot at each size, saved, and compared with its baseline."""

    def __init__(self, args, report, api, browser):
        self.args, self.report, self.api, self.browser = args, report, api, browser
        self.differ = None  # a blank page that compares screenshots, opened when first needed

    def take(self, detail, name, target):
        """Save the screenshot of state `name` on `target`, and check it (detail: the state's
        entry in the JSON report)."""
        args = self.args
        file = f"{name}-{target.name}.png"
        check = f"screenshot {target.name}"
        try:
            data = target.screenshot()
        except Unsteady as e:
            self.report.check(name, check, [f"{name}: {e}"])
            return
        (args.screenshots / file).write_bytes(data)
        entry = {"size": target.name, "path": str(args.screenshots / file)}
        detail["screenshots"].append(entry)
        if args.baseline is None:
            return
        base = args.baseline / file
        entry["baseline"] = str(base)
        if not base.is_file():
            self.report.check(name, check, [f"{name}: no baseline image {base}"])
            return
        if self.differ is None:
            self.differ = self.browser.new_page()
        url = lambda png: "data:image/png;base64," + base64.b64encode(png).decode()  # noqa: E731
        try:
            found = self.differ.evaluate(DIFF, [url(data), url(base.read_bytes()),
                                                args.pixel_threshold, args.max_diff])
        except self.api.Error as e:
            self.report.check(name, check, [f"{name}: the baseline image {base} cannot be "
                                            f"read: {reason(e)}"])
            return
        entry.update(share=found["share"], ok=found["ok"])
        if found["ok"]:
            self.report.check(name, check, [], f"{name}: screenshot {target.name} matches the "
                                               f"baseline ({found['share']:.3%} of pixels differ)")
            return
        diff = args.screenshots / f"{name}-{target.name}.diff.png"
        diff.write_bytes(base64.b64decode(found["diff"].split(",", 1)[1]))
        entry["diff"] = str(diff)
        if (found["width"], found["height"]) != (found["baseWidth"], found["baseHeight"]):
            what = (f"is {found['width']}x{found['height']} px, the baseline "
                    f"{found['baseWidth']}x{found['baseHeight']}")
        else:
            what = (f"differs from the baseline in {found['share']:.3%} of its pixels (at most "
                    f"{args.max_diff:.3%} may)")
        self.report.check(name, check, [f"{name}: screenshot {target.name} {what}; see {diff}"])
