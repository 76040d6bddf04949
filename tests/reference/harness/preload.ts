// Bun preload: resolve the imports the reference modules make that the registry cannot satisfy
// at 18.3.4 to the harness's own shims. The reference code itself is loaded unchanged from the
// cache directory (see scripts/reference-oracle); nothing of it is copied here.
import { plugin } from "bun";

const shims = `${import.meta.dir}/shims`;

plugin({
	name: "reference-oracle-shims",
	setup(build) {
		for (const [name, file] of [
			["@oh-my-pi/pi-utils", "pi-utils.ts"],
			["@oh-my-pi/pi-natives", "pi-natives.ts"],
		]) {
			build.module(name, async () => ({ exports: await import(`${shims}/${file}`), loader: "object" }));
		}
		build.onLoad({ filter: /pi-coding-agent\/src\/capability\/index\.ts$/ }, async () => ({
			contents: await Bun.file(`${shims}/capability-index.ts`).text(),
			loader: "ts",
		}));
	},
});
