// What pi-tui's TtsrNotificationComponent (chat/ttsr-notification.ts) draws with, replaced by records:
// a Text keeps its string, the notice keeps the presentation callback the component gives it, and the
// theme styles nothing and has empty icons. The coordinator oracle reads the header and body lines
// back through `lastPresentation`, so the notice text is the component's own, without terminal styling.
export class Container {
	children: any[] = [];
	addChild(child: unknown): void {
		this.children.push(child);
	}
}

export class Text {
	constructor(readonly text: string, _x = 0, _y = 0) {}
}

export class MessageNoticeComponent {
	expanded = false;
	constructor(readonly options: { presentation: (context: { expanded: boolean }) => any }) {}
	setExpanded(expanded: boolean): void {
		this.expanded = expanded;
	}
	isExpanded(): boolean {
		return this.expanded;
	}
	setToolActivityVisible(): void {}
	refresh(): void {}
}

const same = (text: string) => text;
export const theme = { bold: same, italic: same, icon: { rewind: "", warning: "" } };

/** The presentation the component's notice would draw now (`expanded` or collapsed). */
export function lastPresentation(component: Container, expanded: boolean): any {
	const notice = component.children.find(child => child instanceof MessageNoticeComponent) as MessageNoticeComponent;
	return notice.options.presentation({ expanded });
}
