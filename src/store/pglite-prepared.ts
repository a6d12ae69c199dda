import { parse, type PGlite, protocol, type Results } from '@electric-sql/pglite';
import { serializeValue } from './pglite-binary-parameters.ts';
import { PreparedRunMessage } from './prepared-run-message.ts';

/**
 * Named prepared statements on PGlite, which has none of its own: its `query` sends an
 * unnamed Parse, so every run is planned again, and planning in the WASM engine is slow
 * (the settlement batch: 1.9 ms of planning for 1.9 ms of execution). A statement
 * prepared here is parsed and described once per PGlite instance, then each run is
 * Bind/Describe/Execute/Sync: the wire messages PGlite's own `query` sends after its Parse.
 *
 * It takes the same two locks as PGlite's `query` (no other transaction open, no other
 * statement running) and writes the data folder afterwards, as `query` does outside a
 * transaction. Those are PGlite 0.5's underscored members: the test of this module
 * (test/integration/store/prepared-statements.test.ts) runs on both engines and fails if they change.
 */
type PGliteInternals = PGlite & {
  _checkReady(): Promise<void>;
  _runExclusiveTransaction<T>(work: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(work: () => Promise<T>): Promise<T>;
};

type BackendMessage = Parameters<typeof parse.parseResults>[0][number];

export class PglitePreparedStatements {
  readonly #db: PGliteInternals;
  /** Parameter type ids of each statement prepared on this instance, by name. */
  readonly #parameterTypes = new Map<string, number[]>();
  /** The text each name was prepared with: one name, one statement. */
  readonly #texts = new Map<string, string>();
  readonly #runMessage = new PreparedRunMessage();

  constructor(db: PGlite) {
    this.#db = db as PGliteInternals;
  }

  async query<Row>(name: string, sql: string, params: readonly unknown[]): Promise<Results<Row>> {
    const db = this.#db;
    await db._checkReady();
    return db._runExclusiveTransaction(() =>
      db._runExclusiveQuery(async () => {
        // Checked under the locks: two first runs of one name cannot both prepare it.
        const known = this.#texts.get(name);
        if (known !== undefined && known !== sql) throw new Error(`prepared statement "${name}" was prepared with another text`);
        const types = this.#parameterTypes.get(name) ?? (await this.#prepare(name, sql));
        const values = params.map((value, index) => (value === null || value === undefined ? null : serializeValue(db, types[index] ?? 0, value)));
        // One pass through the engine for the four messages: it reads every message of its
        // input before answering, and an error skips to the Sync at the end, as on a socket;
        // one pass instead of four saves a round trip into the engine per message.
        const messages = await this.#send(this.#runMessage.write(name, values));
        await db.syncToFs();
        return parse.parseResults(messages, db.parsers)[0] as Results<Row>;
      }),
    );
  }

  async #prepare(name: string, sql: string): Promise<number[]> {
    let described: BackendMessage[];
    try {
      await this.#send(protocol.serialize.parse({ name, text: sql, types: [] }));
      described = await this.#send(protocol.serialize.describe({ type: 'S', name }));
    } catch (error) {
      // After an error the engine skips messages until a Sync: without one here, the next
      // statement's messages would be skipped and it would answer nothing.
      await this.#send(protocol.serialize.sync());
      throw error;
    }
    const types = parse.parseDescribeStatementResults(described);
    this.#parameterTypes.set(name, types);
    this.#texts.set(name, sql);
    return types;
  }

  #send(message: Uint8Array): Promise<BackendMessage[]> {
    return this.#db.execProtocolStream(message, { syncToFs: false });
  }
}
