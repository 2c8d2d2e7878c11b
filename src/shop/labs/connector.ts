// A print lab connector (docs/shop.md "Labs"): how an order's print sheet reaches the lab that
// prints it. One works today (mail-lab.ts: the sheet as a CSV attachment); a lab with an API
// (an upload, a webhook) is another implementation of the same interface.

/** The order as a lab needs to know it: its number and where it comes from. */
export interface LabOrder {
  uuid: string;
  siteTitle: string;
  /** The photographer's account e-mail: the lab's replies go there. */
  replyTo?: string;
  /** How many prints (the sum of the print items' quantities). */
  prints: number;
}

/** An order sheet: one CSV row per print item (src/orders/sheet.ts). */
export interface OrderSheet {
  fileName: string;
  csv: string;
  rows: number;
}

export interface LabConnector {
  readonly name: string;
  /** Hands the sheet to the lab; a rejection means the lab did not get it. */
  send(order: LabOrder, sheet: OrderSheet): Promise<void>;
}
