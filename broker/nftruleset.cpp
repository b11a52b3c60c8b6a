#include "nftruleset.h"
#include "portforwarder.h"

#include <malloc.h>
#include <nftables/libnftables.h>
#include <memory>

namespace airlock {

namespace {

// The reasons a dropped packet is logged with; DroppedPacketLog parses them back.
constexpr const char *kDropKinds[] = {"spoof", "ipv6", "ipopt", "icmp", "udp", "other", "hostport", "forward"};

QString dropChain(int index, const char *kind) { return QStringLiteral("x%1_%2").arg(index).arg(QLatin1String(kind)); }

QString dropChains(int index, const SandboxNet &s, quint16 logGroup)
{
    QString chains;
    for (const char *kind : kDropKinds) {
        // Logging is rate-limited so a flood costs the host little; the drop is not.
        chains += QStringLiteral("    chain %1 {\n"
                                 "        limit rate 200/second burst 100 packets log group %2 prefix \"alk:%3:%4\"\n"
                                 "        counter drop\n"
                                 "    }\n")
                      .arg(dropChain(index, kind)).arg(logGroup).arg(QLatin1String(kind), s.bridge);
    }
    return chains;
}

// A sandbox the broker has no listeners for: nothing is redirected, every packet of the
// guest is dropped (and logged as "other"), nothing on the host answers it.
QString dropOnlyChains(int index, const SandboxNet &s, quint16 logGroup)
{
    return QStringLiteral("    chain sb%1 {\n        goto %2\n    }\n"
                          "    chain in%1 {\n        goto %3\n    }\n")
               .arg(index).arg(dropChain(index, "other"), dropChain(index, "hostport")) +
           dropChains(index, s, logGroup);
}

struct NftOutcome {
    bool created = false;
    int rc = -1;
    QString out, err;
};

// A context per command: replacing our table (a delete, a hooked chain) makes libnftables
// cache the namespace's whole ruleset, every other program's tables too, and a context keeps
// that cache until its next command. Freed here and handed back to the system (glibc keeps
// small freed blocks), so airlockd's memory follows our table, not other people's rulesets.
NftOutcome runInFreshContext(const QByteArray &script)
{
    NftOutcome result;
    {
        const std::unique_ptr<nft_ctx, void (*)(nft_ctx *)> ctx(nft_ctx_new(NFT_CTX_DEFAULT), nft_ctx_free);
        if (!ctx)
            return result;
        result.created = true;
        nft_ctx_buffer_output(ctx.get());
        nft_ctx_buffer_error(ctx.get());
        result.rc = nft_run_cmd_from_buffer(ctx.get(), script.constData());
        result.out = QString::fromUtf8(nft_ctx_get_output_buffer(ctx.get()));
        result.err = QString::fromUtf8(nft_ctx_get_error_buffer(ctx.get())).trimmed();
    }
    malloc_trim(0);
    return result;
}

} // namespace

NftRuleset::NftRuleset(BrokerPorts ports, quint16 logGroup, const QString &table)
    : m_ports(ports), m_logGroup(logGroup), m_table(table)
{
}

QString NftRuleset::render(const QList<SandboxNet> &sandboxes, BrokerPorts ports, quint16 logGroup, const QString &table)
{
    QString guard, redirect, input, forward, perSandbox, arpGuard, arpPerSandbox;
    for (int i = 0; i < sandboxes.size(); ++i) {
        const SandboxNet &s = sandboxes.at(i);
        const QString br = QStringLiteral("\"%1\"").arg(s.bridge);
        const QString guest = ipv4ToString(s.guestIp);
        const QString gateway = ipv4ToString(s.gatewayIp);
        guard += QStringLiteral("        iifname %1 jump sb%2\n").arg(br).arg(i);
        input += QStringLiteral("        iifname %1 jump in%2\n").arg(br).arg(i);
        forward += QStringLiteral("        iifname %1 goto %2\n        oifname %1 drop\n").arg(br, dropChain(i, "forward"));
        // ARP is not IP, so the inet table never sees it: a guest answering or asking from a
        // forged address is caught here, before its first forged IP packet could be sent.
        arpGuard += QStringLiteral("        iifname %1 jump arp%2\n").arg(br).arg(i);
        arpPerSandbox += QStringLiteral("    chain arp%1 {\n"
                                        "        arp saddr ether != %2 goto %3\n"
                                        "        arp saddr ip 0.0.0.0 accept\n"
                                        "        arp saddr ip != %4 goto %3\n"
                                        "    }\n"
                                        "    chain %3 {\n"
                                        "        limit rate 200/second burst 100 packets log group %5 prefix \"alk:spoof:%6\"\n"
                                        "        counter drop\n"
                                        "    }\n")
                             .arg(i).arg(s.mac.toLower(), dropChain(i, "arpspoof"), guest).arg(logGroup).arg(s.bridge);
        if (s.dropAll) {
            perSandbox += dropOnlyChains(i, s, logGroup);
            continue;
        }
        redirect += QStringLiteral("        iifname %1 udp dport 53 redirect to :%2\n"
                                   "        iifname %1 tcp dport 53 redirect to :%2\n"
                                   "        iifname %1 meta l4proto tcp redirect to :%3\n")
                        .arg(br).arg(ports.dns).arg(ports.proxy);
        // Anti-spoofing first, then what a guest may send at all.
        perSandbox += QStringLiteral("    chain sb%1 {\n"
                                     "        ether saddr != %2 goto %3\n"
                                     "        meta nfproto ipv6 goto %4\n"
                                     "        ip saddr != %5 goto %3\n"
                                     "        ip hdrlength != 5 goto %6\n"
                                     "        ip protocol tcp accept\n"
                                     "        udp dport 53 accept\n"
                                     "        ip protocol icmp goto %7\n"
                                     "        ip protocol udp goto %8\n"
                                     "        goto %9\n"
                                     "    }\n")
                          .arg(i).arg(s.mac.toLower(), dropChain(i, "spoof"), dropChain(i, "ipv6"), guest,
                               dropChain(i, "ipopt"), dropChain(i, "icmp"), dropChain(i, "udp"), dropChain(i, "other"));
        // After the redirect only the broker's ports on the gateway address are open, and
        // only to a socket with IP_TRANSPARENT (the broker's: setting it needs CAP_NET_ADMIN
        // or CAP_NET_RAW). Whoever else binds the port hears nothing; no socket: dropped.
        // The guest may also answer a connection the host opened to it for an exposed port:
        // such a socket carries the port forwarder's mark (SO_MARK needs CAP_NET_ADMIN too),
        // and only an established connection's packets find it.
        perSandbox += QStringLiteral("    chain in%1 {\n"
                                     "        ip daddr %2 tcp dport %3 socket transparent 1 accept\n"
                                     "        ip daddr %2 udp dport %4 socket transparent 1 accept\n"
                                     "        ip daddr %2 tcp dport %4 socket transparent 1 accept\n"
                                     "        ip daddr %2 ip protocol tcp socket mark 0x%6 accept\n"
                                     "        goto %5\n"
                                     "    }\n")
                          .arg(i).arg(gateway).arg(ports.proxy).arg(ports.dns).arg(dropChain(i, "hostport"))
                          .arg(PortForwarder::kExposeSocketMark, 8, 16, QLatin1Char('0'));
        perSandbox += dropChains(i, s, logGroup);
    }
    return QStringLiteral("table inet %1 {\n").arg(table) +
           QStringLiteral("    chain guard {\n        type filter hook prerouting priority -150; policy accept;\n") + guard +
           QStringLiteral("    }\n    chain steer {\n        type nat hook prerouting priority dstnat; policy accept;\n") + redirect +
           QStringLiteral("    }\n    chain host_in {\n        type filter hook input priority 0; policy accept;\n") + input +
           QStringLiteral("    }\n    chain no_forward {\n        type filter hook forward priority 0; policy accept;\n") + forward +
           QStringLiteral("    }\n") + perSandbox + QStringLiteral("}\n") +
           QStringLiteral("table arp %1 {\n").arg(table) +
           QStringLiteral("    chain arp_guard {\n        type filter hook input priority 0; policy accept;\n") + arpGuard +
           QStringLiteral("    }\n") + arpPerSandbox + QStringLiteral("}\n");
}

Status NftRuleset::run(const QString &script, QString *output)
{
    const NftOutcome result = runInFreshContext(script.toUtf8());
    if (output)
        *output = result.out;
    if (!result.created)
        return Error{QStringLiteral("cannot use nftables"), QStringLiteral("libnftables could not create a context")};
    if (result.rc != 0)
        return Error{QStringLiteral("nftables refused the airlock table"),
                     (result.err.isEmpty() ? QStringLiteral("unknown error") : result.err) +
                         QStringLiteral(" (airlockd needs root or CAP_NET_ADMIN)")};
    return ok();
}

Status NftRuleset::apply(const QList<SandboxNet> &sandboxes)
{
    for (const SandboxNet &s : sandboxes) {
        if (!isValidInterfaceName(s.bridge) || !isValidMac(s.mac) || !s.guestIp || !s.gatewayIp)
            return Error{QStringLiteral("cannot protect sandbox %1").arg(s.name),
                         QStringLiteral("its network description is invalid (bridge \"%1\", mac \"%2\")").arg(s.bridge, s.mac)};
    }
    // add + delete + define in one buffer: one kernel transaction, whether or not they existed.
    return run(deleteBoth() + render(sandboxes, m_ports, m_logGroup, m_table));
}

Status NftRuleset::remove()
{
    return run(deleteBoth());
}

QString NftRuleset::deleteBoth() const
{
    QString script;
    for (const char *family : {"inet", "arp"})
        script += QStringLiteral("add table %1 %2\ndelete table %1 %2\n").arg(QLatin1String(family), m_table);
    return script;
}

bool NftRuleset::present()
{
    return bool(run(QStringLiteral("list table inet %1\n").arg(m_table)));
}

} // namespace airlock
