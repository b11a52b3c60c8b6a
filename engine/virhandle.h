#pragma once
// The one owner of libvirt object handles: move-only, frees the object when it goes out of
// scope. Every libvirt handle the engine and the daemon hold (domains, networks, pools,
// volumes, streams, snapshots, private connections) is one of these, so no path forgets a
// free and none frees twice.
#include <QString>
#include <cstdlib>
#include <libvirt/libvirt.h>
#include <utility>
#include <vector>

namespace airlock {

template <typename Ptr, int (*Free)(Ptr)>
class VirHandle {
public:
    VirHandle() = default;
    explicit VirHandle(Ptr ptr) : m_ptr(ptr) {}
    ~VirHandle() { reset(); }
    VirHandle(VirHandle &&other) noexcept : m_ptr(std::exchange(other.m_ptr, nullptr)) {}
    VirHandle &operator=(VirHandle &&other) noexcept
    {
        if (this != &other)
            reset(std::exchange(other.m_ptr, nullptr));
        return *this;
    }
    VirHandle(const VirHandle &) = delete;
    VirHandle &operator=(const VirHandle &) = delete;

    Ptr get() const { return m_ptr; }
    explicit operator bool() const { return m_ptr != nullptr; }
    void reset(Ptr ptr = nullptr)
    {
        if (m_ptr)
            Free(m_ptr);
        m_ptr = ptr;
    }

private:
    Ptr m_ptr = nullptr;
};

using VirDomain = VirHandle<virDomainPtr, virDomainFree>;
using VirNetwork = VirHandle<virNetworkPtr, virNetworkFree>;
using VirPool = VirHandle<virStoragePoolPtr, virStoragePoolFree>;
using VirVolume = VirHandle<virStorageVolPtr, virStorageVolFree>;
using VirStream = VirHandle<virStreamPtr, virStreamFree>;
using VirSnapshot = VirHandle<virDomainSnapshotPtr, virDomainSnapshotFree>;
using VirConnection = VirHandle<virConnectPtr, virConnectClose>;

// Lookups by name; an empty handle when libvirt has none (its error stays the thread's last).
inline VirDomain lookupDomain(virConnectPtr conn, const QString &name)
{
    return VirDomain(virDomainLookupByName(conn, name.toUtf8().constData()));
}
inline VirNetwork lookupNetwork(virConnectPtr conn, const QString &name)
{
    return VirNetwork(virNetworkLookupByName(conn, name.toUtf8().constData()));
}
inline VirVolume lookupVolume(virStoragePoolPtr pool, const QString &name)
{
    return VirVolume(virStorageVolLookupByName(pool, name.toUtf8().constData()));
}

// Takes a string libvirt allocated for the caller (an XML description, a path) and frees it.
inline QString takeVirString(char *text)
{
    const QString out = QString::fromUtf8(text);
    std::free(text);
    return out;
}

// Takes the array a virConnectListAll* / virStoragePoolListAllVolumes call filled: each
// element becomes a handle, the array itself is freed. A negative count (an error) is none.
template <typename Handle, typename Ptr>
std::vector<Handle> takeVirList(Ptr *items, int count)
{
    std::vector<Handle> out;
    out.reserve(count > 0 ? size_t(count) : 0);
    for (int i = 0; i < count; ++i)
        out.emplace_back(items[i]);
    std::free(items);
    return out;
}

inline std::vector<VirDomain> listAllDomains(virConnectPtr conn)
{
    virDomainPtr *items = nullptr;
    const int n = virConnectListAllDomains(conn, &items, 0);
    return takeVirList<VirDomain>(items, n);
}
inline std::vector<VirNetwork> listAllNetworks(virConnectPtr conn)
{
    virNetworkPtr *items = nullptr;
    const int n = virConnectListAllNetworks(conn, &items, 0);
    return takeVirList<VirNetwork>(items, n);
}
inline std::vector<VirVolume> listAllVolumes(virStoragePoolPtr pool)
{
    virStorageVolPtr *items = nullptr;
    const int n = virStoragePoolListAllVolumes(pool, &items, 0);
    return takeVirList<VirVolume>(items, n);
}

} // namespace airlock
