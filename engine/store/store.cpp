#include "store/store.h"
#include "core/logging.h"

#include <QAtomicInteger>
#include <QFile>
#include <QFileInfo>
#include <QMutex>
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <sqlite3.h>

namespace airlock {

namespace {

QString nextConnectionName()
{
    static QAtomicInteger<quint64> counter;
    return QStringLiteral("airlock-store-%1").arg(counter.fetchAndAddRelaxed(1));
}

Error sqlError(const QString &what, const QSqlError &e)
{
    return Error{what, e.text()};
}

Status exec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery q(db);
    if (!q.exec(sql))
        return sqlError(QStringLiteral("SQL failed (%1)").arg(sql.left(80)), q.lastError());
    return ok();
}

// A read still stepping on this connection pins its WAL snapshot (see transaction()).
Status noOpenRead(sqlite3 *raw, const QString &what)
{
    if (!raw || !sqlite3_get_autocommit(raw))
        return ok(); // inside a transaction every read is current
    for (sqlite3_stmt *st = sqlite3_next_stmt(raw, nullptr); st; st = sqlite3_next_stmt(raw, st)) {
        if (sqlite3_stmt_busy(st) && sqlite3_stmt_readonly(st))
            return Error{what,
                         QStringLiteral("a read on the same database connection is still open (%1); this is a bug "
                                        "in Airlock, please report it")
                             .arg(QString::fromUtf8(sqlite3_sql(st)).simplified().left(160))};
    }
    return ok();
}

// Files this process has open (or had open) through SQLite. Closing ANY descriptor of a file
// drops all of the process's POSIX locks on it, so reading such a file ourselves while another
// connection (another thread's Store) is open would silently break SQLite's WAL locking.
QMutex g_openedMutex;
QSet<QString> g_opened;

void rememberOpened(const QString &path)
{
    QMutexLocker locker(&g_openedMutex);
    g_opened.insert(QFileInfo(path).canonicalFilePath());
}

// The first 16 bytes of every SQLite 3 database; only read before this process first opens it.
bool looksLikeSqlite(const QString &path)
{
    {
        QMutexLocker locker(&g_openedMutex);
        if (g_opened.contains(QFileInfo(path).canonicalFilePath()))
            return true;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = f.read(16);
    return head.isEmpty() || head == QByteArrayLiteral("SQLite format 3\0");
}

} // namespace

// Schema. Step 1 was assembled while nothing had shipped; from now on never edit a step
// (a database already at that version would never see the change): add a new one.
const std::vector<Migration> &Store::migrations()
{
    static const std::vector<Migration> steps = {
        {1, QStringLiteral("initial schema"), QStringLiteral(R"SQL(
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE images (
    name        TEXT PRIMARY KEY,
    recipe      TEXT NOT NULL,
    kernel      TEXT NOT NULL,
    initrd      TEXT NOT NULL,
    rootfs      TEXT NOT NULL,
    size_bytes  INTEGER NOT NULL DEFAULT 0,
    digest      TEXT NOT NULL DEFAULT '',
    created     TEXT NOT NULL
);
CREATE TABLE networks (
    name        TEXT PRIMARY KEY,
    bridge      TEXT NOT NULL UNIQUE,
    subnet      TEXT NOT NULL UNIQUE,
    gateway     TEXT NOT NULL,
    guest_ip    TEXT NOT NULL,
    created     TEXT NOT NULL
);
CREATE TABLE sandboxes (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    owner_uid   INTEGER NOT NULL,
    image       TEXT NOT NULL REFERENCES images(name),
    template    TEXT NOT NULL DEFAULT '',
    cpus        INTEGER NOT NULL,
    memory_mib  INTEGER NOT NULL,
    disk_gib    INTEGER NOT NULL,
    mac         TEXT NOT NULL UNIQUE,
    network     TEXT REFERENCES networks(name),
    env_json    TEXT NOT NULL DEFAULT '{}',
    desired     TEXT NOT NULL DEFAULT 'stopped',
    top_layer   INTEGER,
    created     TEXT NOT NULL
);
CREATE TABLE layers (
    id          INTEGER PRIMARY KEY,
    sandbox_id  INTEGER REFERENCES sandboxes(id) ON DELETE SET NULL,
    parent_id   INTEGER REFERENCES layers(id) ON DELETE RESTRICT,
    volume      TEXT NOT NULL UNIQUE,
    frozen      INTEGER NOT NULL DEFAULT 0,
    created     TEXT NOT NULL
);
CREATE TABLE snapshots (
    id          INTEGER PRIMARY KEY,
    sandbox_id  INTEGER NOT NULL REFERENCES sandboxes(id) ON DELETE CASCADE,
    layer_id    INTEGER NOT NULL REFERENCES layers(id) ON DELETE RESTRICT,
    parent_id   INTEGER REFERENCES snapshots(id) ON DELETE SET NULL,
    label       TEXT NOT NULL DEFAULT '',
    created     TEXT NOT NULL
);
CREATE TABLE rules (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    sandbox_id  INTEGER REFERENCES sandboxes(id) ON DELETE CASCADE,
    owner_uid   INTEGER NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
    pattern     TEXT NOT NULL,
    port        INTEGER,
    expires     TEXT,
    once        INTEGER NOT NULL DEFAULT 0,
    created     TEXT NOT NULL
);
CREATE TABLE egress_events (
    id          INTEGER PRIMARY KEY,
    sandbox     TEXT NOT NULL,
    time        TEXT NOT NULL,
    proto       TEXT NOT NULL,
    host        TEXT NOT NULL DEFAULT '',
    ip          TEXT NOT NULL DEFAULT '',
    port        INTEGER NOT NULL DEFAULT 0,
    sni         TEXT NOT NULL DEFAULT '',
    method      TEXT NOT NULL DEFAULT '',
    path        TEXT NOT NULL DEFAULT '',
    decision    TEXT NOT NULL,
    rule        INTEGER,
    reason      TEXT NOT NULL DEFAULT '',
    bytes_up    INTEGER NOT NULL DEFAULT 0,
    bytes_down  INTEGER NOT NULL DEFAULT 0,
    duration_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX egress_events_by_sandbox ON egress_events(sandbox, id);
CREATE TABLE key_slots (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('passphrase', 'keyring')),
    kdf_params  TEXT NOT NULL DEFAULT '{}',
    salt        BLOB,
    wrapped_key BLOB NOT NULL,
    created     TEXT NOT NULL
);
CREATE TABLE secrets (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    owner_uid   INTEGER NOT NULL,
    hosts_json  TEXT NOT NULL,
    header      TEXT NOT NULL,
    value_len   INTEGER NOT NULL,
    nonce       BLOB NOT NULL,
    ciphertext  BLOB NOT NULL,
    created     TEXT NOT NULL
);
CREATE TABLE sandbox_secrets (
    sandbox_id  INTEGER NOT NULL REFERENCES sandboxes(id) ON DELETE CASCADE,
    secret_id   INTEGER NOT NULL REFERENCES secrets(id) ON DELETE RESTRICT,
    env_var     TEXT NOT NULL,
    placeholder TEXT NOT NULL,
    PRIMARY KEY (sandbox_id, secret_id)
);
CREATE TABLE operations (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    subject     TEXT NOT NULL,
    step        TEXT NOT NULL,
    state_json  TEXT NOT NULL DEFAULT '{}',
    started     TEXT NOT NULL
);
CREATE TABLE sandbox_cas (
    sandbox_id     INTEGER PRIMARY KEY REFERENCES sandboxes(id) ON DELETE CASCADE,
    cert_pem       TEXT NOT NULL,
    key_nonce      BLOB NOT NULL,
    key_ciphertext BLOB NOT NULL,
    created        TEXT NOT NULL
)
)SQL")},
        // Denials folded into one row carry how many they were; rows name their sandbox by
        // id, so a sandbox created later under a removed one's name starts with no history.
        // SQLite gives a new row the largest id + 1, so a removed sandbox's id can come back:
        // its events let go of it (the trigger) and stay readable by name.
        {2, QStringLiteral("egress event counts and sandbox ids"), QStringLiteral(R"SQL(
ALTER TABLE egress_events ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE egress_events ADD COLUMN sandbox_id INTEGER;
UPDATE egress_events SET sandbox_id = (SELECT id FROM sandboxes WHERE sandboxes.name = egress_events.sandbox);
CREATE INDEX egress_events_by_sandbox_id ON egress_events(sandbox_id, id);
CREATE TRIGGER egress_events_forget_sandbox AFTER DELETE ON sandboxes BEGIN UPDATE egress_events SET sandbox_id = NULL WHERE sandbox_id = OLD.id; END
)SQL")},
        // Who built each image, so only they (or root) may remove or rebuild it; NULL (built
        // before this step) counts as root's.
        {3, QStringLiteral("images record who built them"), QStringLiteral(R"SQL(
ALTER TABLE images ADD COLUMN owner_uid INTEGER
)SQL")},
        // A rule may let its host:port carry bytes the broker cannot verify (Rule::rawTcp).
        {4, QStringLiteral("rules.raw_tcp"), QStringLiteral(R"SQL(
ALTER TABLE rules ADD COLUMN raw_tcp INTEGER NOT NULL DEFAULT 0
)SQL")},
        // A rule may last only until its sandbox stops (Rule::untilStop).
        {5, QStringLiteral("rules.until_stop"), QStringLiteral(R"SQL(
ALTER TABLE rules ADD COLUMN until_stop INTEGER NOT NULL DEFAULT 0
)SQL")},
        // An ephemeral sandbox is removed once it stops (SandboxEngine::discardEphemerals).
        {6, QStringLiteral("sandboxes.ephemeral"), QStringLiteral(R"SQL(
ALTER TABLE sandboxes ADD COLUMN ephemeral INTEGER NOT NULL DEFAULT 0
)SQL")},
        // The guest process an attempt came from, as the guest reports it (GuestProcess::toStored).
        {7, QStringLiteral("egress_events.guest_process"), QStringLiteral(R"SQL(
ALTER TABLE egress_events ADD COLUMN guest_process TEXT NOT NULL DEFAULT ''
)SQL")},
        // A checkpoint keeps the guest's memory beside its disk layer: the file's name under
        // <dataDir>/checkpoints and its size (NULL: a disk-only snapshot).
        {8, QStringLiteral("snapshots.memory_file"), QStringLiteral(R"SQL(
ALTER TABLE snapshots ADD COLUMN memory_file TEXT;
ALTER TABLE snapshots ADD COLUMN memory_bytes INTEGER
)SQL")},
        // Sign-ins (core/loginspec.h): the tokens a login issued are secrets that say so and
        // when they expire; a sandbox made from a template with a login keeps its declaration.
        {9, QStringLiteral("sign-ins"), QStringLiteral(R"SQL(
ALTER TABLE secrets ADD COLUMN login TEXT NOT NULL DEFAULT '';
ALTER TABLE secrets ADD COLUMN expires TEXT NOT NULL DEFAULT '';
CREATE TABLE sandbox_logins (
    sandbox_id  INTEGER NOT NULL REFERENCES sandboxes(id) ON DELETE CASCADE,
    login       TEXT NOT NULL,
    spec_json   TEXT NOT NULL,
    PRIMARY KEY (sandbox_id, login)
)
)SQL")},
        // Guest ports the host reaches on its loopback (broker/portforwarder.h): one host port
        // serves one guest port of one sandbox, and they go with the sandbox.
        {10, QStringLiteral("exposed_ports"), QStringLiteral(R"SQL(
CREATE TABLE exposed_ports (
    sandbox_id  INTEGER NOT NULL REFERENCES sandboxes(id) ON DELETE CASCADE,
    guest_port  INTEGER NOT NULL CHECK (guest_port BETWEEN 1 AND 65535),
    host_port   INTEGER NOT NULL UNIQUE CHECK (host_port BETWEEN 1 AND 65535),
    created     TEXT NOT NULL,
    PRIMARY KEY (sandbox_id, guest_port)
)
)SQL")},
        // Where each rule came from (Rule::origin): a command, a decision on an attempt, a
        // preset, a policy file. Older rules say nothing.
        {11, QStringLiteral("rules.origin"), QStringLiteral(R"SQL(
ALTER TABLE rules ADD COLUMN origin TEXT NOT NULL DEFAULT ''
)SQL")},
        // A rule may decide single requests (Rule::request): a method and a path pattern, or a
        // git service and a repository pattern. Empty: the rule decides connections, as before.
        {12, QStringLiteral("rules.request"), QStringLiteral(R"SQL(
ALTER TABLE rules ADD COLUMN method TEXT NOT NULL DEFAULT '';
ALTER TABLE rules ADD COLUMN path TEXT NOT NULL DEFAULT '';
ALTER TABLE rules ADD COLUMN git TEXT NOT NULL DEFAULT '';
ALTER TABLE rules ADD COLUMN repo TEXT NOT NULL DEFAULT ''
)SQL")},
        // The names a sandbox's CA may speak for (its secrets' hosts, its sign-ins' and those
        // of the request rules it started with): the broker intercepts a host whose requests
        // rules decide only inside them. Older CAs name none beyond their loans'.
        {13, QStringLiteral("sandbox_cas.hosts"), QStringLiteral(R"SQL(
ALTER TABLE sandbox_cas ADD COLUMN hosts_json TEXT NOT NULL DEFAULT '[]'
)SQL")},
        // Automatic checkpoints: a sandbox's schedule (0: none) and which snapshots the
        // schedule took (retention removes only those, never a labelled one).
        {14, QStringLiteral("checkpoint schedule"), QStringLiteral(R"SQL(
ALTER TABLE sandboxes ADD COLUMN checkpoint_every_s INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandboxes ADD COLUMN checkpoint_keep INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snapshots ADD COLUMN automatic INTEGER NOT NULL DEFAULT 0
)SQL")},
    };
    return steps;
}

int Store::schemaVersion() { return migrations().back().version; }

Store::~Store()
{
    if (m_connection.isEmpty())
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

Store::Store(Store &&other) noexcept
    : m_connection(std::exchange(other.m_connection, QString()))
    , m_path(std::move(other.m_path))
{
}

Store &Store::operator=(Store &&other) noexcept
{
    if (this != &other) {
        Store dropped(std::move(*this));
        m_connection = std::exchange(other.m_connection, QString());
        m_path = std::move(other.m_path);
    }
    return *this;
}

QSqlDatabase Store::db() const { return QSqlDatabase::database(m_connection, false); }

int Store::version() const
{
    QSqlQuery q(db());
    if (q.exec(QStringLiteral("PRAGMA user_version")) && q.next())
        return q.value(0).toInt();
    return -1;
}

Result<Store> Store::open(const QString &path) { return open(path, migrations()); }

Result<Store> Store::open(const QString &path, const std::vector<Migration> &steps)
{
    const QString what = QStringLiteral("cannot open the store %1").arg(path);
    const bool existed = QFileInfo::exists(path);
    if (existed && !looksLikeSqlite(path))
        return Error{what, QStringLiteral("the file is not a SQLite database (corrupt or foreign); it was left "
                                          "untouched: move it aside or restore a backup, then start airlockd again")};

    Store store;
    store.m_path = path;
    store.m_connection = nextConnectionName();
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), store.m_connection);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (!db.open())
        return sqlError(what, db.lastError());

    // Ask SQLite itself before anything writes: a damaged file must not be "repaired" by us.
    {
        QSqlQuery q(db);
        if (!q.exec(QStringLiteral("PRAGMA quick_check")) || !q.next())
            return Error{what, QStringLiteral("SQLite cannot read it (%1); it was left untouched: move it aside or "
                                              "restore a backup").arg(q.lastError().text())};
        const QString verdict = q.value(0).toString();
        if (verdict != QLatin1String("ok"))
            return Error{what, QStringLiteral("the database is damaged (%1); it was left untouched: move it aside "
                                              "or restore a backup").arg(verdict)};
    }

    rememberOpened(path);
    const int current = store.version();
    const int newest = steps.empty() ? 0 : steps.back().version;
    if (current > newest)
        return Error{what, QStringLiteral("it was written by a newer Airlock (schema %1, this build knows up to %2); "
                                          "upgrade Airlock or use another --data-dir").arg(current).arg(newest)};

    for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA foreign_keys=ON", "PRAGMA synchronous=NORMAL"}) {
        if (Status s = exec(db, QString::fromLatin1(pragma)); !s)
            return Error{what, s.error().message()};
    }

    for (const Migration &m : steps) {
        if (m.version <= current)
            continue;
        Status applied = store.transaction([&]() -> Status {
            const QStringList statements = m.sql.split(QStringLiteral(";\n"), Qt::SkipEmptyParts);
            for (const QString &statement : statements) {
                if (statement.trimmed().isEmpty())
                    continue;
                if (Status s = exec(db, statement); !s)
                    return s;
            }
            return exec(db, QStringLiteral("PRAGMA user_version=%1").arg(m.version));
        });
        if (!applied)
            return Error{what, QStringLiteral("migration %1 (%2) failed and was rolled back; the schema stays at "
                                              "version %3: %4")
                                   .arg(m.version).arg(m.description).arg(store.version()).arg(applied.error().message())};
        qCInfo(lcStore) << "migrated" << path << "to schema" << m.version << m.description;
    }
    return store;
}

sqlite3 *Store::handle() const
{
    const QVariant handle = db().driver()->handle();
    if (qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return nullptr;
    return *static_cast<sqlite3 *const *>(handle.data());
}

Status Store::requireNoOpenRead(const QString &what) const { return noOpenRead(handle(), what); }

namespace {

Result<QSqlQuery> run(const QSqlDatabase &db, const QString &sql, const QVariantList &binds)
{
    QSqlQuery q(db);
    q.setForwardOnly(true);
    if (!q.prepare(sql))
        return sqlError(QStringLiteral("cannot prepare a database statement"), q.lastError());
    for (const QVariant &v : binds)
        q.addBindValue(v);
    if (!q.exec())
        return sqlError(QStringLiteral("a database statement failed"), q.lastError());
    return q;
}

// Binds one value the way QtSql's SQLite driver would store it.
int bindValue(sqlite3_stmt *st, int index, const QVariant &v)
{
    if (v.isNull())
        return sqlite3_bind_null(st, index);
    switch (v.typeId()) {
    case QMetaType::Bool:
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
        return sqlite3_bind_int64(st, index, v.toLongLong());
    case QMetaType::Double:
        return sqlite3_bind_double(st, index, v.toDouble());
    case QMetaType::QByteArray: {
        const QByteArray bytes = v.toByteArray();
        return sqlite3_bind_blob64(st, index, bytes.constData(), sqlite3_uint64(bytes.size()), SQLITE_TRANSIENT);
    }
    default: {
        const QByteArray utf8 = v.toString().toUtf8();
        return sqlite3_bind_text64(st, index, utf8.constData(), sqlite3_uint64(utf8.size()), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    }
}

} // namespace

Result<QList<QSqlRecord>> Store::rows(const QString &sql, const QVariantList &binds) const
{
    Result<QSqlQuery> q = run(db(), sql, binds);
    if (!q)
        return q.error();
    QList<QSqlRecord> out;
    while (q->next())
        out.append(q->record());
    q->finish();
    return out;
}

Result<std::optional<QSqlRecord>> Store::firstRow(const QString &sql, const QVariantList &binds) const
{
    Result<QSqlQuery> q = run(db(), sql, binds);
    if (!q)
        return q.error();
    std::optional<QSqlRecord> out;
    if (q->next())
        out = q->record();
    q->finish();
    return out;
}

namespace {

// What one write did: the row it inserted (if any) and how many rows it changed.
struct Written {
    qint64 id = 0;
    int changed = 0;
};

Result<Written> runWrite(const QSqlDatabase &db, sqlite3 *raw, const QString &sql, const QVariantList &binds)
{
    if (Status s = noOpenRead(raw, QStringLiteral("cannot write to the database")); !s)
        return s.error();
    Result<QSqlQuery> q = run(db, sql, binds);
    if (!q)
        return q.error();
    const Written w{q->lastInsertId().toLongLong(), q->numRowsAffected()};
    q->finish();
    return w;
}

} // namespace

Result<qint64> Store::write(const QString &sql, const QVariantList &binds)
{
    const Result<Written> w = runWrite(db(), handle(), sql, binds);
    if (!w)
        return w.error();
    return w->id;
}

Result<int> Store::change(const QString &sql, const QVariantList &binds)
{
    const Result<Written> w = runWrite(db(), handle(), sql, binds);
    if (!w)
        return w.error();
    return w->changed;
}

Result<Store::Batch> Store::prepare(const QString &sql)
{
    const QString what = QStringLiteral("cannot prepare a database statement");
    sqlite3 *raw = handle();
    if (!raw)
        return Error{what, QStringLiteral("the store is not open")};
    Batch batch;
    const QByteArray utf8 = sql.toUtf8();
    if (sqlite3_prepare_v3(raw, utf8.constData(), int(utf8.size()), SQLITE_PREPARE_PERSISTENT, &batch.m_statement,
                           nullptr) != SQLITE_OK)
        return Error{what, QString::fromUtf8(sqlite3_errmsg(raw))};
    batch.m_db = raw;
    if (!batch.m_statement || sqlite3_stmt_readonly(batch.m_statement))
        return Error{what, QStringLiteral("a batch only writes; read with rows() or firstRow() (%1)").arg(sql.left(80))};
    return batch;
}

Store::Batch::~Batch() { sqlite3_finalize(m_statement); }

Store::Batch::Batch(Batch &&other) noexcept
    : m_db(std::exchange(other.m_db, nullptr))
    , m_statement(std::exchange(other.m_statement, nullptr))
{
}

Store::Batch &Store::Batch::operator=(Batch &&other) noexcept
{
    if (this != &other) {
        sqlite3_finalize(m_statement);
        m_db = std::exchange(other.m_db, nullptr);
        m_statement = std::exchange(other.m_statement, nullptr);
    }
    return *this;
}

Status Store::Batch::run(const QVariantList &binds)
{
    const QString what = QStringLiteral("a database statement failed");
    if (!m_statement)
        return Error{what, QStringLiteral("the batch was not prepared")};
    if (Status s = noOpenRead(m_db, QStringLiteral("cannot write to the database")); !s)
        return s;
    if (binds.size() != sqlite3_bind_parameter_count(m_statement))
        return Error{what, QStringLiteral("%1 values for %2 parameters").arg(binds.size()).arg(sqlite3_bind_parameter_count(m_statement))};
    int rc = SQLITE_OK;
    for (int i = 0; i < binds.size() && rc == SQLITE_OK; ++i)
        rc = bindValue(m_statement, i + 1, binds.at(i));
    if (rc == SQLITE_OK)
        rc = sqlite3_step(m_statement);
    Status result = rc == SQLITE_DONE ? ok() : Status(Error{what, QString::fromUtf8(sqlite3_errmsg(m_db))});
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
    return result;
}

Status Store::transaction(const std::function<Status()> &work)
{
    QSqlDatabase d = db();
    if (Status s = requireNoOpenRead(QStringLiteral("cannot begin a transaction")); !s)
        return s;
    // IMMEDIATE takes the write lock up front (waiting up to the busy timeout). A deferred
    // transaction that reads first cannot upgrade once another connection (the egress event
    // writer, another thread's Store) has committed meanwhile: SQLite fails it at once with
    // "database is locked", whatever the busy timeout.
    {
        QSqlQuery begin(d);
        if (!begin.exec(QStringLiteral("BEGIN IMMEDIATE")))
            return sqlError(QStringLiteral("cannot begin a transaction"), begin.lastError());
    }
    // A failed rollback leaves nothing to undo by hand: SQLite has already rolled back, or
    // does so when this connection closes. It is logged, and the caller gets the first error.
    const auto rollBack = [&d] {
        if (!d.rollback())
            qCWarning(lcStore) << "rollback failed:" << d.lastError().text();
    };
    Status result = work();
    if (!result) {
        rollBack();
        return result;
    }
    if (!d.commit()) {
        const QSqlError e = d.lastError();
        rollBack();
        return sqlError(QStringLiteral("cannot commit"), e);
    }
    return result;
}

Result<QString> Store::setting(const QString &key, const QString &fallback) const
{
    Result<std::optional<QSqlRecord>> row = firstRow(QStringLiteral("SELECT value FROM settings WHERE key = ?"), {key});
    if (!row)
        return Error{QStringLiteral("cannot read setting %1").arg(key), row.error().why};
    return row.value() ? row.value()->value(0).toString() : fallback;
}

Status Store::setSetting(const QString &key, const QString &value)
{
    Result<qint64> written = write(QStringLiteral("INSERT INTO settings(key, value) VALUES(?, ?) "
                                                  "ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
                                   {key, value});
    if (!written)
        return Error{QStringLiteral("cannot write setting %1").arg(key), written.error().why};
    return ok();
}

} // namespace airlock
