#include "daemon/vaultservice.h"
#include "protocol/names.h"
#include "protocol/sandbox.h"
#include "protocol/vault.h"
#include "api/apiserver.h"
#include "api/jsonrpc.h"
#include "daemon/daemon.h"
#include "core/logging.h"
#include "securebytes.h"

#include <QJsonArray>

namespace airlock {

namespace {

constexpr qint64 kLockedAlertEveryMs = 60 * 1000;

// A string param, or a clear InvalidParams failure.
bool stringParam(const Call &call, const char *name, QString *out, bool required = true)
{
    const QJsonValue v = call.params().value(QLatin1String(name));
    if (v.isString()) {
        *out = v.toString();
        return true;
    }
    if (!required && v.isUndefined())
        return true;
    call.fail(rpc::InvalidParams, QStringLiteral("\"%1\" must be a string").arg(QLatin1String(name)));
    return false;
}

QJsonObject stateObject(Vault &vault)
{
    return proto::VaultStatus{vault.state(), vault.hasKeyringSlot()}.toJson();
}

QJsonObject secretJson(const SecretInfo &s)
{
    return proto::SecretInfo{s.name, s.hosts, s.header, s.usedBy, s.login, s.expires}.toJson();
}

} // namespace

VaultService::VaultService(Daemon &daemon) : m_daemon(daemon)
{
    m_worker.setMaxThreadCount(1);
    m_worker.setExpiryTimeout(-1); // keep the thread (and its store connection) alive
}

VaultService::~VaultService() { stop(); }

// Every exfiltration attempt is told. A locked vault is told once a minute per sandbox:
// an agent retrying in a loop must not bury the desktop in identical notifications.
bool VaultService::shouldAlert(const InterceptEvent &e)
{
    if (e.alertKind.isEmpty())
        return false;
    if (e.alertKind != QLatin1String("vault_locked"))
        return true;
    std::lock_guard lock(m_alertMutex);
    if (const auto quiet = m_lockedAlerted.constFind(e.sandbox); quiet != m_lockedAlerted.constEnd() && !quiet->hasExpired())
        return false;
    m_lockedAlerted.insert(e.sandbox, QDeadlineTimer(kLockedAlertEveryMs));
    return true;
}

Status VaultService::start()
{
    m_vault = std::make_unique<Vault>(m_daemon.config().databasePath());
    if (Status s = m_vault->open(); !s)
        return s;
    Interceptor::Options options;
    options.extraCaFile = m_daemon.config().upstreamCaFile;
    m_interceptor = std::make_unique<Interceptor>(*m_vault, options, [this](const InterceptEvent &e) {
        {
            std::lock_guard lock(m_listenerMutex);
            if (m_listener)
                m_listener(e);
        }
        if (shouldAlert(e)) // the daemon's ApiServer outlives its services and their threads
            m_daemon.api().postAlert(e.sandbox, e.alertKind, e.alertMessage);
    });
    m_interceptor->setRequestDecider(m_requestDecider);
    m_interceptor->setRequestAsking(m_requestAsking);
    if (Status s = m_interceptor->init(); !s)
        return s;
    // Started inside a desktop session with a keyring slot: open without asking.
    if (m_vault->state() == VaultState::Locked && m_vault->hasKeyringSlot() &&
        !qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS")) {
        Vault *vault = m_vault.get();
        m_worker.start([vault] {
            const Status s = vault->unlockFromKeyring();
            if (s)
                qCInfo(lcVault) << "vault unlocked from the OS keyring";
            else
                qCWarning(lcVault) << "the OS keyring did not unlock the vault:" << s.error().message();
        });
    }
    return ok();
}

void VaultService::setInterceptListener(Interceptor::EventSink listener)
{
    std::lock_guard lock(m_listenerMutex);
    m_listener = std::move(listener);
}

void VaultService::stop()
{
    m_interceptor.reset(); // closes intercepted connections and waits for their threads
    m_worker.waitForDone();
    if (m_vault)
        m_vault->lock();
}

void VaultService::onWorker(const Call &call, std::function<void(const Call &)> work)
{
    m_worker.start([call, work = std::move(work)] { work(call); });
}

void VaultService::contributeStatus(proto::DaemonStatus &status) const
{
    if (m_vault)
        status.vault = m_vault->state();
}

void VaultService::registerMethods(ApiServer &api)
{
    registerVaultMethods(api);
    registerSecretMethods(api);
}

void VaultService::registerVaultMethods(ApiServer &api)
{
    Vault *vault = m_vault.get();
    const auto passphraseMethod = [this, vault](const char *param, auto action) {
        return [this, vault, param, action](const Call &call) {
            QString text;
            if (!stringParam(call, param, &text))
                return;
            onWorker(call, [vault, text, action](const Call &c) mutable {
                QByteArray passphrase = text.toUtf8();
                cleanse(text);
                const Status s = action(*vault, passphrase);
                cleanse(passphrase);
                s ? c.reply(stateObject(*vault)) : c.fail(s.error());
            });
        };
    };
    api.registerMethod(proto::method::VaultInit,
                       passphraseMethod("passphrase", [](Vault &v, const QByteArray &p) { return v.init(p); }));
    const auto unlockWithPassphrase = passphraseMethod("passphrase", [](Vault &v, const QByteArray &p) { return v.unlock(p); });
    api.registerMethod(proto::method::VaultUnlock, [this, vault, unlockWithPassphrase](const Call &call) {
        if (!call.params().value(QLatin1String("keyring")).toBool())
            return unlockWithPassphrase(call);
        onWorker(call, [vault](const Call &c) {
            const Status s = vault->unlockFromKeyring();
            s ? c.reply(stateObject(*vault)) : c.fail(s.error());
        });
    });
    api.registerMethod(proto::method::VaultKeyring, [this, vault](const Call &call) {
        const QJsonValue enable = call.params().value(QLatin1String("enable"));
        if (!enable.isBool())
            return call.fail(rpc::InvalidParams, QStringLiteral("\"enable\" must be true or false"));
        onWorker(call, [vault, on = enable.toBool()](const Call &c) {
            const Status s = on ? vault->enableKeyringSlot() : vault->disableKeyringSlot();
            s ? c.reply(stateObject(*vault)) : c.fail(s.error());
        });
    });
    api.registerMethod(proto::method::VaultLock, [this, vault](const Call &call) {
        onWorker(call, [vault](const Call &c) {
            vault->lock();
            c.reply(stateObject(*vault));
        });
    });
    api.registerMethod(proto::method::VaultStatus, [this, vault](const Call &call) {
        onWorker(call, [vault](const Call &c) { c.reply(stateObject(*vault)); });
    });
    api.registerMethod(proto::method::VaultChangePassphrase, [this, vault](const Call &call) {
        QString oldText, newText;
        if (!stringParam(call, "old", &oldText) || !stringParam(call, "new", &newText))
            return;
        onWorker(call, [vault, oldText, newText](const Call &c) mutable {
            QByteArray oldPass = oldText.toUtf8(), newPass = newText.toUtf8();
            cleanse(oldText);
            cleanse(newText);
            const Status s = vault->changePassphrase(oldPass, newPass);
            cleanse(oldPass);
            cleanse(newPass);
            s ? c.reply(stateObject(*vault)) : c.fail(s.error());
        });
    });
}

void VaultService::registerSecretMethods(ApiServer &api)
{
    Vault *vault = m_vault.get();
    api.registerMethod(proto::method::SecretSet, [this, vault](const Call &call) {
        QString name, header, valueText;
        if (!stringParam(call, "name", &name) || !stringParam(call, "value", &valueText) ||
            !stringParam(call, "header", &header, false))
            return;
        const QJsonValue hostsValue = call.params().value(QLatin1String("hosts"));
        QStringList hosts;
        const QJsonArray hostsArray = hostsValue.toArray();
        for (const QJsonValue &h : hostsArray) {
            if (!h.isString())
                return call.fail(rpc::InvalidParams, QStringLiteral("\"hosts\" must be an array of host patterns"));
            hosts.append(h.toString());
        }
        if (!hostsValue.isArray() && !hostsValue.isUndefined())
            return call.fail(rpc::InvalidParams, QStringLiteral("\"hosts\" must be an array of host patterns"));
        onWorker(call, [vault, name, hosts, header, valueText](const Call &c) mutable {
            QByteArray value = valueText.toUtf8();
            cleanse(valueText);
            const Status s = vault->setSecret(name, hosts, header, value, c.peer().uid);
            cleanse(value);
            if (!s)
                return c.fail(s.error());
            const auto all = vault->secrets(c.peer().uid);
            for (const SecretInfo &info : all ? all.value() : QList<SecretInfo>()) {
                if (info.name == name)
                    return c.reply(secretJson(info));
            }
            c.reply(proto::SecretInfo{name, hosts, header, {}}.toJson()); // set, but not listed: what was asked
        });
    });
    api.registerMethod(proto::method::SecretList, [this, vault](const Call &call) {
        onWorker(call, [vault](const Call &c) {
            const auto all = vault->secrets(c.peer().uid);
            if (!all)
                return c.fail(all.error());
            QJsonArray out;
            for (const SecretInfo &info : all.value())
                out.append(secretJson(info));
            c.reply(out);
        });
    });
    api.registerMethod(proto::method::SecretRemove, [this, vault](const Call &call) {
        QString name;
        if (!stringParam(call, "name", &name))
            return;
        onWorker(call, [vault, name](const Call &c) {
            const Status s = vault->removeSecret(name, c.peer().uid);
            s ? c.reply(proto::NameParams{name}.toJson()) : c.fail(s.error());
        });
    });
}

} // namespace airlock
